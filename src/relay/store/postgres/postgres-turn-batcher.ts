/*
 * One query for the reads asked for in one turn of the event loop. The reads every request makes
 * before it waits for a send slot come in bursts (a batch asks for all its items at once); one
 * query per burst keeps the pool free for the reservations of calls about to be sent: a
 * reservation stuck behind a thousand reads would go out late, in a bunch with the next ones, and
 * the service would count them as over its limit.
 */

interface Load<K, V> {
  key: K;
  resolve: (v: V) => void;
  reject: (e: unknown) => void;
}

/**
 * Collects the loads asked for in one turn of the event loop and answers them with one call of
 * `fetch` (at most `max` keys each). Each call's query starts after every load it answers was
 * asked for, so a batched read sees every write its callers finished before asking.
 */
export class TurnBatcher<K, V> {
  readonly #fetch: (keys: K[]) => Promise<V[]>;
  readonly #max: number;
  #batch: Load<K, V>[] | undefined;

  constructor(fetch: (keys: K[]) => Promise<V[]>, max = 500) {
    this.#fetch = fetch;
    this.#max = max;
  }

  load(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      if (!this.#batch) {
        const batch: Load<K, V>[] = [];
        this.#batch = batch;
        setImmediate(() => {
          if (this.#batch === batch) this.#batch = undefined;
          for (let i = 0; i < batch.length; i += this.#max) void this.#run(batch.slice(i, i + this.#max));
        });
      }
      this.#batch.push({ key, resolve, reject });
    });
  }

  async #run(batch: Load<K, V>[]): Promise<void> {
    try {
      const values = await this.#fetch(batch.map((b) => b.key));
      batch.forEach((b, i) => b.resolve(values[i] as V));
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }
}
