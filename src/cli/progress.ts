/*
 * Progress of a run: on a terminal, one line redrawn in place (a bar, counts, rate, time left and
 * spend); anywhere else (a log file, a scheduled task), a plain line every tenth of the rows or every
 * ten seconds, whichever comes first, so a log shows the run moving without a line per row.
 */

export interface ProgressStats {
  /** Rows to send. */
  total: number;
  /** Rows with an outcome, of those. */
  done: number;
  cached: number;
  failed: number;
  warnings: number;
  spentUSD: number;
}

export interface ProgressReporter {
  update(stats: ProgressStats): void;
  /** A message between progress lines (it does not break the bar). */
  note(line: string): void;
  finish(stats: ProgressStats): void;
}

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  now?: () => number;
  /** Plain mode: the longest silence between two lines, ms. @default 10000 */
  everyMs?: number;
  /** TTY mode: the shortest time between two redraws, ms. @default 100 */
  redrawMs?: number;
}

export function progressReporter(stream: ProgressStream, options: ProgressOptions = {}): ProgressReporter {
  return stream.isTTY === true ? new TerminalProgress(stream, options) : new PlainProgress(stream, options);
}

/** Rows a second over the last few seconds, and the time left at that rate. */
class Rate {
  readonly #samples: { at: number; done: number }[] = [];
  readonly #windowMs = 10_000;

  add(at: number, done: number): void {
    const last = this.#samples.at(-1);
    if (last && at - last.at < 200) return;
    this.#samples.push({ at, done });
    while (this.#samples.length > 2 && (this.#samples[0] as { at: number }).at < at - this.#windowMs)
      this.#samples.shift();
  }

  perSecond(at: number, done: number): number | undefined {
    const first = this.#samples[0];
    if (!first || at - first.at < 500) return undefined;
    return ((done - first.done) * 1000) / (at - first.at);
  }
}

function formatStats(s: ProgressStats, rate: number | undefined): string {
  const parts = [`${n(s.done)}/${n(s.total)}`, `cached ${n(s.cached)}`, `failed ${n(s.failed)}`, `⚠ ${n(s.warnings)}`];
  if (rate !== undefined) {
    parts.push(`${rate < 10 ? rate.toFixed(1) : Math.round(rate)}/s`);
    const left = s.total - s.done;
    if (left > 0 && rate > 0) parts.push(`ETA ${duration(left / rate)}`);
  }
  parts.push(`$${s.spentUSD.toFixed(2)}`);
  return parts.join(" · ");
}

const n = (x: number) => x.toLocaleString("en-US");

/** 75 → "1:15", 3700 → "1:01:40". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

class TerminalProgress implements ProgressReporter {
  readonly #stream: ProgressStream;
  readonly #now: () => number;
  readonly #redrawMs: number;
  readonly #rate = new Rate();
  #last: ProgressStats | undefined;
  #drawnAt = -Infinity;
  #line = "";
  // Redraws while no row completes, so the rate and time left stay true during a long wait.
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(stream: ProgressStream, options: ProgressOptions) {
    this.#stream = stream;
    this.#now = options.now ?? Date.now;
    this.#redrawMs = options.redrawMs ?? 100;
    this.#timer = setInterval(() => this.#last && this.#draw(this.#last, this.#now()), 1000);
    this.#timer.unref();
  }

  update(stats: ProgressStats): void {
    const now = this.#now();
    this.#rate.add(now, stats.done);
    this.#last = stats;
    if (now - this.#drawnAt < this.#redrawMs && stats.done < stats.total) return;
    this.#draw(stats, now);
  }

  note(line: string): void {
    this.#stream.write(`\r\x1b[2K${line}\n`);
    this.#line = "";
    if (this.#last) this.#draw(this.#last, this.#now());
  }

  finish(stats: ProgressStats): void {
    clearInterval(this.#timer);
    this.#draw(stats, this.#now());
    this.#stream.write("\n");
  }

  #draw(stats: ProgressStats, now: number): void {
    this.#drawnAt = now;
    const text = formatStats(stats, this.#rate.perSecond(now, stats.done));
    // A pseudo-terminal may report 0 columns.
    const columns = this.#stream.columns || 80;
    // A steady bar on a wide terminal; on a narrow one, what room the text leaves.
    const barWidth = columns >= 110 ? 24 : Math.max(0, Math.min(24, columns - text.length - 4));
    // Clamped: a count past the total (a bug elsewhere) must cost a wrong bar, never the run.
    const share = stats.total === 0 ? 1 : Math.min(1, Math.max(0, stats.done / stats.total));
    const filled = Math.round(share * barWidth);
    const bar = barWidth >= 5 ? `[${"█".repeat(filled)}${"░".repeat(barWidth - filled)}] ` : "";
    const line = `${bar}${text}`.slice(0, Math.max(10, columns - 1));
    if (line === this.#line) return;
    this.#line = line;
    this.#stream.write(`\r\x1b[2K${line}`);
  }
}

class PlainProgress implements ProgressReporter {
  readonly #stream: ProgressStream;
  readonly #now: () => number;
  readonly #everyMs: number;
  readonly #rate = new Rate();
  #printedAt: number;
  #nextStep = 1;
  #lastDone = -1;
  #last: ProgressStats | undefined;
  // A line during a long silence too, so a scheduled task's log shows the run is alive.
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(stream: ProgressStream, options: ProgressOptions) {
    this.#stream = stream;
    this.#now = options.now ?? Date.now;
    this.#everyMs = options.everyMs ?? 10_000;
    this.#printedAt = this.#now();
    this.#timer = setInterval(
      () => {
        const now = this.#now();
        if (this.#last && now - this.#printedAt >= this.#everyMs) this.#print(this.#last, now);
      },
      Math.min(this.#everyMs, 1000),
    );
    this.#timer.unref();
  }

  update(stats: ProgressStats): void {
    const now = this.#now();
    this.#last = stats;
    this.#rate.add(now, stats.done);
    const step = stats.total === 0 ? 10 : Math.floor((stats.done / stats.total) * 10);
    if (step >= this.#nextStep || now - this.#printedAt >= this.#everyMs) {
      this.#nextStep = step + 1;
      this.#print(stats, now);
    }
  }

  note(line: string): void {
    this.#stream.write(`${line}\n`);
  }

  finish(stats: ProgressStats): void {
    clearInterval(this.#timer);
    if (stats.done !== this.#lastDone) this.#print(stats, this.#now());
  }

  #print(stats: ProgressStats, now: number): void {
    this.#printedAt = now;
    this.#lastDone = stats.done;
    this.#stream.write(`progress ${formatStats(stats, this.#rate.perSecond(now, stats.done))}\n`);
  }
}
