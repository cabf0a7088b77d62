// A memory limit for a server the bench starts, as docs/deploy-server.md's systemd unit gives the real one
// (MemoryMax=512M), in the truest form this machine allows: a memory cgroup of its own (cgroup v2's
// memory.max, or v1's memory.limit_in_bytes with swap counted), under the bench's own cgroup; where no
// cgroup can be made, V8's heap limit (--max-old-space-size), whose RSS the bench then checks itself.
import fs from "node:fs";
import path from "node:path";

export interface MemoryLimit {
  /** How the limit is held, in words for the bench's output. */
  readonly how: string;
  /** True when the kernel holds it (a cgroup); false when only V8's heap is (RSS must be checked). */
  readonly enforcedByKernel: boolean;
  /** The command the server is started through (it joins the cgroup, then execs the server). */
  readonly launcher: readonly string[];
  /** Extra environment for the server (NODE_OPTIONS where the limit is V8's). */
  readonly env: Record<string, string>;
  /** The highest memory the cgroup was charged, in MB; null where there is no cgroup. */
  peakMb(): number | null;
  /** Times the cgroup's processes were killed for memory (v2 memory.events oom_kill; v1 under_oom/failcnt). */
  oomKills(): number | null;
  /** Every process in the cgroup now (the server and all it started); null where there is no cgroup. */
  processes(): number[] | null;
  /** Removes the cgroup (its processes must have ended). */
  remove(): void;
}

const CGROUP_ROOT = "/sys/fs/cgroup";

/** This process's cgroup folder for memory: v2's unified one, or v1's memory controller's. */
const ownMemoryCgroup = (): { folder: string; version: 1 | 2 } | null => {
  let lines: string[];
  try {
    lines = fs.readFileSync("/proc/self/cgroup", "utf8").trim().split("\n");
  } catch {
    return null;
  }
  for (const line of lines) {
    const [, controllers, relative] = line.split(":");
    if (controllers?.split(",").includes("memory") && relative !== undefined) {
      const folder = path.join(CGROUP_ROOT, "memory", relative);
      if (fs.existsSync(path.join(folder, "memory.limit_in_bytes"))) return { folder, version: 1 };
    }
  }
  const unified = lines.find((line) => line.startsWith("0::"))?.slice(3);
  if (unified !== undefined && fs.existsSync(path.join(CGROUP_ROOT, "cgroup.controllers"))) {
    const controllers = fs.readFileSync(path.join(CGROUP_ROOT, "cgroup.controllers"), "utf8");
    if (controllers.split(/\s+/).includes("memory")) return { folder: path.join(CGROUP_ROOT, unified), version: 2 };
  }
  return null;
};

const readNumber = (file: string): number | null => {
  try {
    return Number(fs.readFileSync(file, "utf8").trim());
  } catch {
    return null;
  }
};

/** A limit of `mb` MB for one server; `name` names its cgroup. */
export const memoryLimit = (mb: number, name: string): MemoryLimit => {
  const bytes = String(mb * 1024 * 1024);
  const own = ownMemoryCgroup();
  if (own) {
    const folder = path.join(own.folder, `${name}-${process.pid}`);
    try {
      fs.mkdirSync(folder);
      if (own.version === 2) {
        fs.writeFileSync(path.join(folder, "memory.max"), bytes);
        fs.writeFileSync(path.join(folder, "memory.swap.max"), "0");
      } else {
        fs.writeFileSync(path.join(folder, "memory.limit_in_bytes"), bytes);
        // Swap counted in the limit too, where the kernel accounts it: no escape into swap.
        if (fs.existsSync(path.join(folder, "memory.memsw.limit_in_bytes")))
          fs.writeFileSync(path.join(folder, "memory.memsw.limit_in_bytes"), bytes);
      }
      const procs = path.join(folder, "cgroup.procs");
      return {
        how:
          own.version === 2
            ? `a cgroup v2 of its own, memory.max = ${mb}M, no swap`
            : `a cgroup v1 memory controller of its own, memory.limit_in_bytes = ${mb}M (swap included)`,
        enforcedByKernel: true,
        // The shell joins the cgroup, then becomes the server: everything it starts is charged there.
        launcher: ["/bin/sh", "-c", `echo $$ > '${procs}' && exec "$@"`, "sh"],
        env: {},
        peakMb: () => {
          const peak = readNumber(path.join(folder, own.version === 2 ? "memory.peak" : "memory.max_usage_in_bytes"));
          return peak === null ? null : peak / 1024 / 1024;
        },
        oomKills: () => {
          if (own.version === 2) {
            const events = fs.readFileSync(path.join(folder, "memory.events"), "utf8");
            return Number(/oom_kill (\d+)/.exec(events)?.[1] ?? Number.NaN);
          }
          const control = fs.readFileSync(path.join(folder, "memory.oom_control"), "utf8");
          return Number(/oom_kill (\d+)/.exec(control)?.[1] ?? Number.NaN);
        },
        processes: () => fs.readFileSync(procs, "utf8").split("\n").filter(Boolean).map(Number),
        remove: () => fs.rmdirSync(folder),
      };
    } catch (error) {
      if (fs.existsSync(folder)) fs.rmdirSync(folder);
      console.warn(`No memory cgroup could be made (${(error as Error).message}); V8's heap limit instead.`);
    }
  }
  return {
    how: `no cgroup available: V8's --max-old-space-size=${mb}, the server's RSS checked by the bench`,
    enforcedByKernel: false,
    launcher: [],
    env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --max-old-space-size=${mb}`.trim() },
    peakMb: () => null,
    oomKills: () => null,
    processes: () => null,
    remove: () => undefined,
  };
};
