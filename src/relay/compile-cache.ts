import nodeModule from "node:module";

/*
 * Imported first by the commands' entry points (relay/str-relay.ts, cli/str-screen.ts): from Node 22.1 on, the
 * compiled code of every module loaded after it is kept on disk, under the system's temporary folder,
 * so the next start skips compiling them, as TypeScript's own `tsc` does. Node 20 has no such cache;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off (Node's documentation, "Module compile cache").
 */
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
