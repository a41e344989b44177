// CPU time the processes of a benchmark spend, read from Linux's /proc, so that a figure can say where its time went
// (the desk, PostgreSQL, the service, the web server) and what the machine's cores allow at best. /proc counts in
// USER_HZ ticks, 100 a second on every Linux; where /proc cannot be read, every reading is null.
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";

/**
 * What to account for: a process (all its threads), the process with every process under it (PostgreSQL's
 * backends), or its main thread only (where a Node server runs its JavaScript; its other threads compress, hash and
 * read files).
 */
export type Accounted = { pid: number | undefined; scope: "process" | "tree" | "main thread" };

export type CpuReading = Record<string, number>;

const MS_PER_TICK = 10;

/** Its own time, and that of its children that have ended (a process's reaped children add to it). */
type ProcStat = { ppid: number; ticks: number; endedChildrenTicks: number };

function readStat(file: string): ProcStat | null {
  try {
    const stat = readFileSync(file, "utf8");
    // The command name, in parentheses, may hold spaces; the fields counted from after it do not.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      ppid: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]),
      endedChildrenTicks: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return null;
  }
}

function processTable(): Map<number, ProcStat> | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const table = new Map<number, ProcStat>();
  for (const pid of pids) {
    const stat = readStat(`/proc/${pid}/stat`);
    if (stat) table.set(Number(pid), stat);
  }
  return table;
}

/** Each process's children, by parent. */
function childrenOf(table: Map<number, ProcStat>): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const [pid, stat] of table) {
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(pid);
    else children.set(stat.ppid, [pid]);
  }
  return children;
}

/**
 * The ticks of `root` and every process under it, living or ended: a child's time moves to its parent's
 * ended-children count when it ends (PostgreSQL's backends end as a pool closes idle connections), so the sum over the
 * tree only grows.
 */
function treeTicks(table: Map<number, ProcStat>, children: Map<number, number[]>, root: number): number {
  const whole = (stat: ProcStat | undefined) => (stat ? stat.ticks + stat.endedChildrenTicks : 0);
  let ticks = whole(table.get(root));
  const queue = [...(children.get(root) ?? [])];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    ticks += whole(table.get(pid));
    queue.push(...(children.get(pid) ?? []));
  }
  return ticks;
}

/** CPU milliseconds (user and system) each named process has spent so far; null without /proc. */
export function readCpu(accounted: Record<string, Accounted>): CpuReading | null {
  const table = processTable();
  if (!table) return null;
  let children: Map<number, number[]> | null = null;
  const ticksOf = (pid: number, scope: Accounted["scope"]): number => {
    if (scope === "process") return table.get(pid)?.ticks ?? 0;
    if (scope === "main thread") return readStat(`/proc/${pid}/task/${pid}/stat`)?.ticks ?? 0;
    children ??= childrenOf(table);
    return treeTicks(table, children, pid);
  };
  const reading: CpuReading = {};
  for (const [name, { pid, scope }] of Object.entries(accounted))
    reading[name] = pid === undefined ? 0 : ticksOf(pid, scope) * MS_PER_TICK;
  return reading;
}

/**
 * What each one named spent since `before`, with the sum of those `total` names (all unless given: a main thread is
 * part of its process) and the least wall time the machine's cores allow for that sum.
 */
export function cpuSince(
  before: CpuReading | null,
  accounted: Record<string, Accounted>,
  total: string[] = Object.keys(accounted),
): { byProcessMs: CpuReading; totalMs: number; cores: number; boundMs: number } | null {
  const after = readCpu(accounted);
  if (!before || !after) return null;
  const byProcessMs: CpuReading = {};
  for (const name of Object.keys(accounted)) byProcessMs[name] = (after[name] ?? 0) - (before[name] ?? 0);
  const totalMs = total.reduce((sum, name) => sum + (byProcessMs[name] ?? 0), 0);
  const cores = os.availableParallelism();
  return { byProcessMs, totalMs, cores, boundMs: Math.round(totalMs / cores) };
}
