import fc from "fast-check";
import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";
import { CallEnd, LedgerRow } from "../../src/relay/store/store";

/**
 * The SQLite store keeps each day's committed spend as a running total beside the ledger, so the
 * budget check before a call reads one row. The total must always equal what a sum of the ledger
 * gives, whatever order calls are reserved, finished and orphaned in.
 */
const DAY = Date.UTC(2026, 10, 22);
const NEXT_DAY = DAY + 86_400_000;

type Step =
  | { kind: "reserve"; maxCents: number; nextDay: boolean }
  | { kind: "finish"; pick: number; state: CallEnd["state"]; cents: number }
  | { kind: "orphan" };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("reserve" as const),
    maxCents: fc.integer({ min: 10, max: 50 }),
    nextDay: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("finish" as const),
    pick: fc.nat(),
    state: fc.constantFrom<CallEnd["state"]>("billed", "free", "failed", "unknown"),
    cents: fc.integer({ min: 0, max: 50 }),
  }),
  fc.record({ kind: fc.constant("orphan" as const) }),
);

function end(state: CallEnd["state"], cents: number): CallEnd {
  return {
    state,
    status: 200,
    cents: state === "billed" ? cents : 0,
    reports: 0,
    aiFunctions: 0,
    analysisId: undefined,
    errorCode: undefined,
    finishedAt: DAY + 1,
  };
}

const CALLERS = ["alice", "bob", undefined];
const committedOf = (r: LedgerRow) =>
  r.state === "billed" ? r.cents : r.state === "pending" || r.state === "unknown" ? r.maxCents : 0;

describe("the SQLite store's running day totals", () => {
  test("equal the ledger's sum after any sequence of reserves, finishes and orphaned calls (300 sequences)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const store = new SqliteStore(":memory:");
        try {
          await store.liveness.heartbeat("alive", 1000);
          const ids: string[] = [];
          for (const s of steps) {
            if (s.kind === "reserve") {
              const day = s.nextDay ? NEXT_DAY : DAY;
              // A dead replica's calls and a live one's, so orphan settling has both to tell apart.
              const owner = ids.length % 3 === 0 ? "dead" : "alive";
              const r = await store.ledger.reserveCall(
                {
                  op: "buy",
                  cacheKey: `k${ids.length}`,
                  maxCents: s.maxCents,
                  owner,
                  startedAt: day + ids.length,
                  callerId: CALLERS[ids.length % CALLERS.length],
                },
                1_000_000,
                day,
              );
              if (r.ok) ids.push(r.id);
            } else if (s.kind === "finish" && ids.length > 0) {
              await store.ledger.finishCall(ids[s.pick % ids.length] as string, end(s.state, Math.min(s.cents, 50)));
            } else if (s.kind === "orphan") {
              // "dead" never beat; "alive" did, well within the minute.
              await store.liveness.settleOrphans("alive", 60_000);
            }
          }
          for (const day of [DAY, NEXT_DAY]) {
            const u = await store.ledger.usage(day);
            const later =
              day === DAY ? await store.ledger.usage(NEXT_DAY) : { billedCents: 0, unknownCents: 0, pendingCents: 0 };
            const summed =
              u.billedCents +
              u.unknownCents +
              u.pendingCents -
              (later.billedCents + later.unknownCents + later.pendingCents);
            expect(await store.ledger.committedCents(day)).toBe(summed);
          }
          // Each caller's running total equals the sum of its own ledger rows for the day.
          const rows = await store.ledger.rows();
          for (const day of [DAY, NEXT_DAY])
            for (const caller of ["alice", "bob"]) {
              const held = rows
                .filter((r) => r.callerId === caller && r.startedAt >= day && r.startedAt < day + 86_400_000)
                .reduce((sum, r) => sum + committedOf(r), 0);
              expect(await store.ledger.committedCents(day, caller)).toBe(held);
            }
        } finally {
          await store.close();
        }
      }),
      { numRuns: 300 },
    );
  });

  test("the budget counts billed, pending and unknown calls, and frees what failed calls held", async () => {
    const store = new SqliteStore(":memory:");
    try {
      const reserve = (n: number) =>
        store.ledger.reserveCall(
          { op: "buy", cacheKey: `k${n}`, maxCents: 40, owner: "a", startedAt: DAY + n },
          100,
          DAY,
        );
      const a = await reserve(1);
      const b = await reserve(2);
      expect(a.ok && b.ok).toBe(true);
      // 80 held of 100: a third call of up to 40 would pass the budget.
      expect(await reserve(3)).toEqual({ ok: false, limit: "relay", committedCents: 80 });
      if (!a.ok || !b.ok) return;
      await store.ledger.finishCall(a.id, end("billed", 20));
      await store.ledger.finishCall(b.id, end("failed", 0));
      expect(await store.ledger.committedCents(DAY)).toBe(20);
      const c = await reserve(4);
      expect(c.ok).toBe(true);
      if (!c.ok) return;
      await store.ledger.finishCall(c.id, end("unknown", 0));
      expect(await store.ledger.committedCents(DAY)).toBe(60);
      const d = await reserve(5);
      if (!d.ok) throw new Error("refused");
      await store.ledger.finishCall(d.id, end("billed", 10));
      expect(await store.ledger.committedCents(DAY)).toBe(70);
      // A call finished as billed, free or failed is not finished again.
      await store.ledger.finishCall(d.id, end("failed", 0));
      expect(await store.ledger.committedCents(DAY)).toBe(70);
      expect(await store.ledger.committedCents(NEXT_DAY)).toBe(0);
    } finally {
      await store.close();
    }
  });
});

describe("a call swept as unknown while its owner lived", () => {
  test("is settled by its owner's finish: the ledger says billed, and usage and the day's spend follow", async () => {
    const store = new SqliteStore(":memory:");
    const t0 = Date.now();
    const clock = jest.spyOn(Date, "now").mockReturnValue(t0);
    try {
      // The owner: a process suspended (a laptop asleep) past three beats, mid-call.
      await store.liveness.heartbeat("sleeper", 1000);
      const r = await store.ledger.reserveCall(
        { op: "buy", cacheKey: "k", maxCents: 40, owner: "sleeper", startedAt: t0 },
        1000,
        DAY,
      );
      if (!r.ok) throw new Error("refused");
      clock.mockReturnValue(t0 + 5000);
      await store.liveness.heartbeat("other", 1000);
      expect(await store.liveness.settleOrphans("other", 3000)).toBe(1);
      expect((await store.ledger.rows())[0]).toMatchObject({ state: "unknown", errorCode: "STR_OUTCOME_UNKNOWN" });
      expect(await store.ledger.usage(DAY)).toMatchObject({ billedCents: 0, unknownCents: 40, pendingCents: 0 });

      // It wakes, and its call had been answered and billed 20 cents.
      await store.ledger.finishCall(r.id, { ...end("billed", 20), reports: 1, analysisId: "a-1" });
      expect((await store.ledger.rows())[0]).toMatchObject({
        state: "billed",
        cents: 20,
        reports: 1,
        analysisId: "a-1",
        errorCode: undefined,
      });
      expect(await store.ledger.usage(DAY)).toEqual({
        calls: 1,
        reports: 1,
        aiFunctions: 0,
        billedCents: 20,
        unknownCents: 0,
        pendingCents: 0,
      });
      expect(await store.ledger.committedCents(DAY)).toBe(20);
      expect(await store.ledger.lastCall("k")).toMatchObject({ state: "billed", analysisId: "a-1" });
    } finally {
      clock.mockRestore();
      await store.close();
    }
  });

  test("that failed frees what it held", async () => {
    const store = new SqliteStore(":memory:");
    try {
      const r = await store.ledger.reserveCall(
        { op: "buy", cacheKey: "k", maxCents: 40, owner: "gone", startedAt: DAY },
        1000,
        DAY,
      );
      if (!r.ok) throw new Error("refused");
      await store.liveness.heartbeat("other", 1000);
      expect(await store.liveness.settleOrphans("other", 3000)).toBe(1);
      expect(await store.ledger.committedCents(DAY)).toBe(40);
      await store.ledger.finishCall(r.id, end("failed", 0));
      expect(await store.ledger.committedCents(DAY)).toBe(0);
      expect(await store.ledger.usage(DAY)).toMatchObject({ billedCents: 0, unknownCents: 0, pendingCents: 0 });
    } finally {
      await store.close();
    }
  });
});

describe("request locks", () => {
  test("a caller waiting for a lock wakes when this process releases it, not when its wait runs out", async () => {
    const store = new SqliteStore(":memory:");
    try {
      expect(await store.locks.acquire("k", "a", 60_000)).toBe(true);
      const start = performance.now();
      const released = store.locks.released("k", 20_000);
      await store.locks.release("k", "a");
      await released;
      // Woken at once: long before its wait of 20 s runs out, whatever else the machine is doing.
      expect(performance.now() - start).toBeLessThan(10_000);
      expect(await store.locks.acquire("k", "b", 60_000)).toBe(true);
    } finally {
      await store.close();
    }
  });
});
