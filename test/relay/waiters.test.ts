import { Waiters, WaitOptions } from "../../src/relay/pacing/waiters";

const slot = { grantedAt: 0, release: () => undefined };

/** Queues calls named by `label`, then grants every slot and returns the labels in the order they were granted. */
function order(waiters: Waiters, calls: [string, WaitOptions][]): Promise<string[]> {
  const granted: string[] = [];
  const all = calls.map(([label, options]) => waiters.wait(undefined, options).then(() => granted.push(label)));
  while (waiters.grant(slot));
  return Promise.all(all).then(() => granted);
}

describe("waiting calls get their send slots in a fair order", () => {
  test("callers take turns, one slot each, whatever order their calls arrived in", async () => {
    const calls: [string, WaitOptions][] = [
      ...["a1", "a2", "a3", "a4"].map((l): [string, WaitOptions] => [l, { caller: "A" }]),
      ["b1", { caller: "B" }],
      ["b2", { caller: "B" }],
      ["c1", { caller: "C" }],
    ];
    expect(await order(new Waiters(), calls)).toEqual(["a1", "b1", "c1", "a2", "b2", "a3", "a4"]);
  });

  test("the relay's own work (no caller) is a caller of its own, not ahead of or behind everyone", async () => {
    const calls: [string, WaitOptions][] = [
      ["a1", { caller: "A" }],
      ["a2", { caller: "A" }],
      ["r1", {}],
      ["r2", {}],
    ];
    expect(await order(new Waiters(), calls)).toEqual(["a1", "r1", "a2", "r2"]);
  });

  test("within one caller, formula calls go before its bulk ones, each kind in arrival order", async () => {
    const calls: [string, WaitOptions][] = [
      ["bulk1", { caller: "A", priority: "bulk" }],
      ["bulk2", { caller: "A", priority: "bulk" }],
      ["f1", { caller: "A", priority: "formula" }],
      ["f2", { caller: "A", priority: "formula" }],
      ["b1", { caller: "B", priority: "bulk" }],
    ];
    expect(await order(new Waiters(), calls)).toEqual(["f1", "b1", "f2", "bulk1", "bulk2"]);
  });

  test("priority orders a caller's own calls only: another caller's formula does not jump the turns", async () => {
    const calls: [string, WaitOptions][] = [
      ["a1", { caller: "A", priority: "bulk" }],
      ["a2", { caller: "A", priority: "bulk" }],
      ["b1", { caller: "B", priority: "formula" }],
      ["b2", { caller: "B", priority: "formula" }],
    ];
    expect(await order(new Waiters(), calls)).toEqual(["a1", "b1", "a2", "b2"]);
  });

  test("a renewal or retry (first) goes ahead of every caller's turn", async () => {
    const waiters = new Waiters();
    const granted: string[] = [];
    const a = waiters.wait(undefined, { caller: "A" }).then(() => granted.push("a"));
    const b = waiters.wait(undefined, { caller: "B" }).then(() => granted.push("b"));
    const retry = waiters.wait(undefined, { caller: "B", first: true }).then(() => granted.push("retry"));
    expect(waiters.hasFirst).toBe(true);
    while (waiters.grant(slot));
    await Promise.all([a, b, retry]);
    expect(granted).toEqual(["retry", "a", "b"]);
  });

  test("a slot granted to a caller chosen elsewhere goes to that caller's next call, else to the next in turn", async () => {
    const waiters = new Waiters();
    const granted: string[] = [];
    const calls = [
      waiters.wait(undefined, { caller: "A" }).then(() => granted.push("a1")),
      waiters.wait(undefined, { caller: "A" }).then(() => granted.push("a2")),
      waiters.wait(undefined, { caller: "B" }).then(() => granted.push("b1")),
    ];
    expect(waiters.callers()).toEqual([
      { caller: "A", formula: 0, bulk: 2 },
      { caller: "B", formula: 0, bulk: 1 },
    ]);
    waiters.grant(slot, "B");
    waiters.grant(slot, "gone");
    waiters.grant(slot);
    await Promise.all(calls);
    expect(granted).toEqual(["b1", "a1", "a2"]);
    expect(waiters.grant(slot)).toBe(false);
  });

  test("an aborted call leaves its line, and a caller with nothing left waiting leaves the turns", async () => {
    const waiters = new Waiters();
    const granted: string[] = [];
    const gone = new AbortController();
    const a = waiters.wait(undefined, { caller: "A" }).then(() => granted.push("a1"));
    const b = waiters.wait(gone.signal, { caller: "B" });
    const c = waiters.wait(undefined, { caller: "C" }).then(() => granted.push("c1"));
    gone.abort(new Error("the caller disconnected"));
    await expect(b).rejects.toThrow("the caller disconnected");
    expect(waiters.size).toBe(2);
    expect(waiters.callers().map((w) => w.caller)).toEqual(["A", "C"]);
    while (waiters.grant(slot));
    await Promise.all([a, c]);
    expect(granted).toEqual(["a1", "c1"]);
    expect(waiters.size).toBe(0);
  });

  test("failAll fails every waiting call, of every caller and priority, and leaves none counted", async () => {
    const waiters = new Waiters();
    const calls = [
      waiters.wait(undefined, { caller: "A", priority: "formula" }),
      waiters.wait(undefined, { caller: "B" }),
      waiters.wait(undefined, { first: true }),
    ];
    waiters.failAll(new Error("Redis away"));
    for (const call of calls) await expect(call).rejects.toThrow("Redis away");
    expect(waiters.size).toBe(0);
    expect(waiters.callers()).toEqual([]);
  });
});
