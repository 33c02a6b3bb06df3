"use strict";
/* global process */
/**
 * Preloaded into a child process (`node --require`): its `Date.now` runs CLOCK_AHEAD_MS ahead
 * (negative: behind) of the machine's clock, as on a replica whose clock was never synchronised.
 * Timers are left alone: only what the process reads as the time is wrong.
 */
const ahead = Number(process.env.CLOCK_AHEAD_MS ?? "0");
if (!Number.isFinite(ahead))
  throw new RangeError(
    `Expected CLOCK_AHEAD_MS to be a number of milliseconds, got ${JSON.stringify(process.env.CLOCK_AHEAD_MS)}`,
  );
const realNow = Date.now;
Date.now = () => realNow() + ahead;
