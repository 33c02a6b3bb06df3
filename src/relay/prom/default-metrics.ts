import fs from "node:fs";
import { Counter, Gauge, Registry, register } from "./metric";

/**
 * prom-client's default process metrics, under its names, for the ones Node reports without a native
 * add-on: CPU, start time, memory, heap, open file descriptors (Linux), event-loop lag, active
 * resources and the Node version. Each is measured when the registry is read.
 */
export interface DefaultMetricsCollectorConfiguration {
  register?: Registry;
  prefix?: string;
}

export function collectDefaultMetrics(config: DefaultMetricsCollectorConfiguration = {}): void {
  const registers = [config.register ?? register];
  const p = config.prefix ?? "";
  cpu(p, registers);
  new Gauge({
    name: `${p}process_start_time_seconds`,
    help: "Start time of the process since unix epoch in seconds.",
    registers,
    collect() {
      this.set(Math.round(Date.now() / 1000 - process.uptime()));
    },
  });
  const memory = (name: string, help: string, read: (m: NodeJS.MemoryUsage) => number) =>
    new Gauge({
      name: `${p}${name}`,
      help,
      registers,
      collect() {
        this.set(read(process.memoryUsage()));
      },
    });
  memory("process_resident_memory_bytes", "Resident memory size in bytes.", (m) => m.rss);
  memory("nodejs_heap_size_total_bytes", "Process heap size from Node.js in bytes.", (m) => m.heapTotal);
  memory("nodejs_heap_size_used_bytes", "Process heap size used from Node.js in bytes.", (m) => m.heapUsed);
  memory("nodejs_external_memory_bytes", "Node.js external memory size in bytes.", (m) => m.external);
  if (process.platform === "linux") {
    new Gauge({
      name: `${p}process_open_fds`,
      help: "Number of open file descriptors.",
      registers,
      collect() {
        try {
          // One entry is the descriptor that reads the directory.
          this.set(fs.readdirSync("/proc/self/fd").length - 1);
        } catch {
          // Unreadable: keep the last value.
        }
      },
    });
  }
  new Gauge({
    name: `${p}nodejs_eventloop_lag_seconds`,
    help: "Lag of event loop in seconds.",
    registers,
    async collect() {
      const start = process.hrtime.bigint();
      await new Promise((resolve) => setImmediate(resolve));
      this.set(Number(process.hrtime.bigint() - start) / 1e9);
    },
  });
  new Gauge({
    name: `${p}nodejs_active_resources_total`,
    help: "Total number of active resources.",
    registers,
    collect() {
      this.set(process.getActiveResourcesInfo().length);
    },
  });
  const [major, minor, patch] = process.versions.node.split(".").map(Number);
  new Gauge({
    name: `${p}nodejs_version_info`,
    help: "Node.js version info.",
    labelNames: ["version", "major", "minor", "patch"],
    registers,
  }).set({ version: process.version, major: major ?? 0, minor: minor ?? 0, patch: patch ?? 0 }, 1);
}

function cpu(p: string, registers: Registry[]): void {
  let last = process.cpuUsage();
  // The first one registered samples for all three: it is read first, before the others are.
  new Counter({
    name: `${p}process_cpu_user_seconds_total`,
    help: "User CPU time spent in seconds.",
    registers,
    collect() {
      const now = process.cpuUsage();
      const u = Math.max(0, now.user - last.user) / 1e6;
      const s = Math.max(0, now.system - last.system) / 1e6;
      last = now;
      this.inc(u);
      system.inc(s);
      total.inc(u + s);
    },
  });
  const system = new Counter({
    name: `${p}process_cpu_system_seconds_total`,
    help: "System CPU time spent in seconds.",
    registers,
  });
  const total = new Counter({
    name: `${p}process_cpu_seconds_total`,
    help: "Total user and system CPU time spent in seconds.",
    registers,
  });
}
