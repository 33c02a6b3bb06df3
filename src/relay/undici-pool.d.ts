/** undici's Pool on its own (upstream.ts): the very class its entry exports as Pool. */
declare module "undici/lib/dispatcher/pool" {
  import { Pool } from "undici";
  export = Pool;
}
