"use strict";
/* global process, require, setInterval */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload: it patches the modules the relay requires */
/**
 * Preloaded into a relay replica by bench:scale (`node --require`): counts the round trips its store
 * clients make, and writes the counts to ROUND_TRIPS_FILE every 20 ms as `{"redis": n, "postgres": n}`.
 *
 * A round trip is one request to a server and its answer: an ioredis command sent on its own, a whole
 * pipeline or MULTI (its commands go out together), a pg query. Commands the relay sends concurrently
 * count one each, as each waits for its own answer.
 */
const fs = require("node:fs");

const file = process.env.ROUND_TRIPS_FILE;
if (!file) throw new Error("Expected ROUND_TRIPS_FILE to name the file the counts are written to, got nothing");
const counts = { redis: 0, postgres: 0 };

const Redis = require("ioredis");
const Pipeline = require("ioredis/built/Pipeline").default;
const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (command, stream, ...rest) {
  // A pipeline's commands pass here with the pipeline's stream: the pipeline counts them once.
  if (stream === undefined) counts.redis++;
  return sendCommand.call(this, command, stream, ...rest);
};
const exec = Pipeline.prototype.exec;
Pipeline.prototype.exec = function (...args) {
  counts.redis++;
  return exec.apply(this, args);
};

const pg = require("pg");
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args) {
  counts.postgres++;
  return query.apply(this, args);
};

// Written whole and renamed into place, so the bench never reads half a file (which it would count as none).
setInterval(() => {
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(counts));
  fs.renameSync(`${file}.tmp`, file);
}, 20).unref();
