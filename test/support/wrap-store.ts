/*
 * Faults and delays put into a store's parts by tests: a method of a part replaced by a wrapper of
 * its own, which calls it bound to its part (the parts keep their state in #private fields).
 */

type MethodOf<T> = { [P in keyof T]: T[P] extends (...args: never[]) => unknown ? P : never }[keyof T];

export function wrapMethod<T extends object, K extends MethodOf<T>>(
  part: T,
  name: K,
  wrap: (original: T[K]) => T[K],
): void {
  const original = (part[name] as (...args: unknown[]) => unknown).bind(part) as T[K];
  part[name] = wrap(original);
}
