/**
 * The functions and the task pane are two webpack bundles on one page, each with its own copy of
 * src/client: they must still share one connection and one refresh gate.
 */
type AddinModule = typeof import("../../src/client/addin");

function freshCopy(): AddinModule {
  let copy: AddinModule | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    copy = require("../../src/client/addin") as AddinModule;
  });
  return copy as AddinModule;
}

test("two copies of the module (two bundles) share one connection and one refresh gate", () => {
  const functionsBundle = freshCopy();
  const paneBundle = freshCopy();
  expect(functionsBundle).not.toBe(paneBundle);
  expect(paneBundle.addinConnection()).toBe(functionsBundle.addinConnection());
  expect(paneBundle.refreshGate).toBe(functionsBundle.refreshGate);
  // The pane opens the gate for what it priced; the functions' copy admits it.
  paneBundle.refreshGate.open(["buy:a", "buy:b"]);
  expect(functionsBundle.refreshGate.admit("buy:a")).toEqual({ freshSince: undefined });
  paneBundle.refreshGate.close();
  expect(functionsBundle.refreshGate.admit("buy:b")).toBeUndefined();
});
