import fs from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import { FastifyInstance } from "fastify";
import { manifestFor } from "./addin-files";
import { RelayError } from "./errors";

/**
 * In production the relay also serves the built add-in (dist/) and its manifest with every URL
 * pointing at RELAY_PUBLIC_URL, so the add-in and its API share one HTTPS origin: no CORS, no
 * local-network prompt, one service to run (DESIGN.md, "Deployment").
 */
export const DIST_DIR = path.resolve(__dirname, "..", "..", "dist");

export async function registerAddinFiles(app: FastifyInstance, options: { distDir?: string; publicUrl: string }): Promise<void> {
  const distDir = options.distDir ?? DIST_DIR;
  const built = fs.existsSync(path.join(distDir, "manifest.xml"));
  // Checked at start, so a bad RELAY_PUBLIC_URL stops the relay with its reason rather than at the first download.
  const manifest = built ? manifestFor(fs.readFileSync(path.join(distDir, "manifest.xml"), "utf8"), options.publicUrl) : undefined;

  app.get("/manifest.xml", async (_request, reply) => {
    if (!manifest) throw new RelayError("STR_NOT_FOUND", "The add-in is not built here: run `npm run build`, then restart the relay.");
    return reply.type("application/xml; charset=utf-8").header("cache-control", "no-cache").send(manifest);
  });
  if (!built) return;
  await app.register(fastifyStatic, {
    root: distDir,
    cacheControl: true,
    maxAge: "1h",
    index: false,
    // A route for each file built, not one for every path: `/*` would also take the API's paths the
    // router refuses (an over-long id), answering 404 where the relay answers 400 naming the problem.
    wildcard: false,
    // The manifest is served above, rewritten; the built copy still points at the dev server.
    globIgnore: ["manifest.xml"],
  });
}
