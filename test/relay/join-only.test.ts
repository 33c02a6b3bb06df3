import { buyBody, startRelay } from "../support/relay";

/*
 * joinOnly (what a stopped client asks for the rows it may have sent) never sends, and never stands
 * in another caller's way: a request asked at the same moment for the same analysis is bought as
 * usual, not answered STR_NOT_SENT by joining the joinOnly ask.
 */
describe("joinOnly", () => {
  test("a plain request asked beside a joinOnly one for the same analysis is bought, once", async () => {
    const t = await startRelay();
    try {
      const [onlyJoin, plain] = await Promise.allSettled([
        t.relay.gateway.analyze("buy", buyBody(70), { joinOnly: true }),
        t.relay.gateway.analyze("buy", buyBody(70)),
      ]);
      expect(onlyJoin).toMatchObject({ status: "rejected", reason: { code: "STR_NOT_SENT" } });
      expect(plain).toMatchObject({ status: "fulfilled", value: { relay: { cached: false, costUSD: 0.2 } } });
      expect(t.sandboxStats().reports).toBe(1);
    } finally {
      await t.close();
    }
  });
});
