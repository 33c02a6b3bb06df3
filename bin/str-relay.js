#!/usr/bin/env node
// The relay: holds the service's key, paces, caches and bills once. See docs/relay.md.
require("../lib/relay/str-relay.js");
