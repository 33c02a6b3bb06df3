/** An answer from fastify's inject(), with its body read as JSON where it is JSON (tests read answers loosely). */
export interface Answer {
  status: number;
  json: any;
  text: string;
  headers: Record<string, unknown>;
}

export function answerOf(r: { statusCode: number; body: string; headers: Record<string, unknown> }): Answer {
  let json: unknown;
  try {
    json = JSON.parse(r.body);
  } catch {
    json = undefined;
  }
  return { status: r.statusCode, json, text: r.body, headers: r.headers };
}
