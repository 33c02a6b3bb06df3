import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { AcquireOptions, LocalPacer, Pacer, Slot, pacingRule } from "../../src/relay/pacing/pacer";
import { SqliteStore } from "../../src/relay/store/sqlite/sqlite-store";
import { RelayStore } from "../../src/relay/store/store";
import { BUY_PATH, TestRelay, buyBody, startRelay } from "../support/relay";
import { wrapMethod } from "../support/wrap-store";

/**
 * Every send slot the relay takes is released (pacer.ts): one that is not holds its place in the
 * window for its lifetime and the write deadline, 10 s of one hundredth of the account's rate. So
 * whatever a call's path (answered, retried, refused by the ledger, renewed, never connected), the
 * slots granted and the slots released are the same.
 */
class TrackingPacer implements Pacer {
  granted = 0;
  released = 0;
  readonly #inner = new LocalPacer(pacingRule(1000));
  readonly slotLifetimeMs = this.#inner.slotLifetimeMs;
  get waiting(): number {
    return this.#inner.waiting;
  }
  async acquire(signal?: AbortSignal, options?: AcquireOptions): Promise<Slot> {
    const slot = await this.#inner.acquire(signal, options);
    this.granted++;
    let released = false;
    return {
      grantedAt: slot.grantedAt,
      release: () => {
        if (!released) this.released++;
        released = true;
        slot.release();
      },
    };
  }
  throttled(until: number): void {
    this.#inner.throttled(until);
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** A SQLite store whose ledger reservations fail, or take `delayMs`, while `mode` says so. */
function ledgerWith(file: string, mode: { fail: boolean; delayMs: number }): RelayStore {
  const store = new SqliteStore(file);
  wrapMethod(store.ledger, "reserveCall", (reserveCall) => async (...args) => {
    if (mode.delayMs > 0) await new Promise((r) => setTimeout(r, mode.delayMs));
    if (mode.fail) throw new Error("the ledger's disk is full");
    return reserveCall(...args);
  });
  return store;
}

describe("every send slot a call takes is released, whatever the call's path", () => {
  let t: TestRelay;
  let pacer: TrackingPacer;
  const mode = { fail: false, delayMs: 0 };
  const start = async (env: Record<string, string> = {}) => {
    pacer = new TrackingPacer();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "str-slot-release-"));
    t = await startRelay(env, {
      pacer,
      dataDir,
      store: ledgerWith(path.join(dataDir, "relay.sqlite"), mode),
      retryPolicy: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 10 },
    });
  };
  afterEach(async () => {
    Object.assign(mode, { fail: false, delayMs: 0 });
    await t.close();
  });

  test("answered, and given up after 503s (each attempt on its own slot)", async () => {
    await start();
    expect((await t.post(BUY_PATH, buyBody(1))).status).toBe(200);
    t.relay.sandbox?.setFaults({ unavailableRate: 1 });
    expect((await t.post(BUY_PATH, buyBody(2))).status).toBe(502);
    expect(pacer.granted).toBe(4);
    expect(pacer.released).toBe(pacer.granted);
  });

  test("refused by the ledger after its slot was granted: the slot goes unused", async () => {
    await start();
    mode.fail = true;
    expect((await t.post(BUY_PATH, buyBody(1))).status).toBeGreaterThanOrEqual(500);
    expect(t.sandboxStats().arrivals).toBe(0);
    expect(pacer.granted).toBe(1);
    expect(pacer.released).toBe(1);
  });

  test("a slot grown old while the ledger row was written is released and traded for a new one", async () => {
    await start();
    mode.delayMs = 3 * pacer.slotLifetimeMs;
    expect((await t.post(BUY_PATH, buyBody(1))).status).toBe(200);
    expect(pacer.granted).toBe(2);
    expect(pacer.released).toBe(2);
  });

  test("never connected: each attempt's slot is released when it fails", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    await start({ STR_API_KEY: "sk_live_key_123456", STR_API_BASE_URL: `http://127.0.0.1:${port}` });
    expect((await t.post(BUY_PATH, buyBody(1))).status).toBe(502);
    expect(pacer.granted).toBe(3);
    expect(pacer.released).toBe(3);
  });
});
