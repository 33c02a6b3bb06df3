import fs from "node:fs";
import path from "node:path";
import { FastifyPluginAsync } from "fastify";
import { PUBLIC } from "../access";
import { functionsMetadataFor, manifestFor } from "../../addin/addin-files";
import { RelayError } from "../../relay-errors";
import { unifiedManifestFor } from "../../addin/unified-manifest";
import { RouteContext } from "./route-context";

/*
 * In production the relay also serves the built add-in (dist/) and its manifest with every URL
 * pointing at RELAY_PUBLIC_URL, so the add-in and its API share one HTTPS origin: one service to
 * run. These files are public: Excel on the web fetches functions.json and the scripts from its own
 * origin, so they answer with `Access-Control-Allow-Origin: *` (set by the guards for every public
 * route: Microsoft's "Manually create JSON metadata for custom functions in Excel" page requires
 * CORS on the server that hosts the metadata, for Excel on the web).
 */

export const DIST_DIR = path.resolve(__dirname, "..", "..", "..", "..", "dist");

/** Whether `distDir` holds a build of the add-in for the relay to serve. */
export function addinBuilt(distDir: string = DIST_DIR): boolean {
  return fs.existsSync(path.join(distDir, "manifest.xml"));
}

export const addinRoutes: FastifyPluginAsync<RouteContext> = async (app, { config, addinDir }) => {
  // A relay told to serve none (str-screen's own: no Excel opens it) has none of these routes.
  if (addinDir === false) return;
  const distDir = addinDir ?? DIST_DIR;
  const built = addinBuilt(distDir);
  // Checked at start, so a bad RELAY_PUBLIC_URL stops the relay with its reason rather than at the first download.
  const manifest = built
    ? manifestFor(fs.readFileSync(path.join(distDir, "manifest.xml"), "utf8"), config.publicUrl, {
        deploymentName: config.deploymentName,
      })
    : undefined;
  const functionsJson = built
    ? functionsMetadataFor(fs.readFileSync(path.join(distDir, "functions.json"), "utf8"), config.publicUrl)
    : undefined;
  // The unified (JSON) manifest, from the served XML and functions.json: the same URLs, Id and names.
  const unifiedManifest =
    manifest && functionsJson ? `${JSON.stringify(unifiedManifestFor(manifest, functionsJson), null, 2)}\n` : undefined;

  // Every route of this plugin, the static files' included, is public.
  app.addHook("onRoute", (route) => {
    route.config = { ...(route.config as object), access: "public" };
  });

  app.get("/manifest.xml", PUBLIC, async (_request, reply) => {
    if (!manifest)
      throw new RelayError(
        "STR_NOT_FOUND",
        "The add-in is not built here: run `npm run build`, then restart the relay.",
      );
    return reply.type("application/xml; charset=utf-8").header("cache-control", "no-cache").send(manifest);
  });
  app.get("/manifest.json", PUBLIC, async (_request, reply) => {
    if (!unifiedManifest)
      throw new RelayError(
        "STR_NOT_FOUND",
        "The add-in is not built here: run `npm run build`, then restart the relay.",
      );
    return reply.type("application/json; charset=utf-8").header("cache-control", "no-cache").send(unifiedManifest);
  });
  if (!functionsJson) return;
  // Rewritten like the manifest: its help links point at this relay's help.html.
  app.get("/functions.json", PUBLIC, async (_request, reply) =>
    reply.type("application/json; charset=utf-8").header("cache-control", "no-cache").send(functionsJson),
  );
  // Loaded only to serve a build: a checkout not built starts without it.
  await app.register(import("@fastify/static"), {
    root: distDir,
    cacheControl: true,
    maxAge: "1h",
    index: false,
    // A route for each file built, not one for every path: `/*` would also take the API's paths the
    // router refuses (an over-long id), answering 404 where the relay answers 400 naming the problem.
    wildcard: false,
    // The manifests and the functions' metadata are served above, rewritten; the built copies still point at the dev server.
    globIgnore: ["manifest.xml", "manifest.json", "functions.json"],
  });
};
