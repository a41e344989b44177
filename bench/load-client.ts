// A small load loop for a production server, run as a process of its own by bench/http-load.ts `loadApart`: every
// session asks for one path a number of times, all sessions at once, each request timed to the last byte of its body.
// Reads {baseUrl, cookies, pathname, perSession} as JSON on stdin, prints the LoadResult as JSON on stdout.
import { pathToFileURL } from "node:url";

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

export type LoadResult = { requests: number; p50Ms: number; p95Ms: number; maxMs: number };

/**
 * Every session asks `perSession` times for `path` (after one warm-up request each, not counted), all sessions at
 * once; each request is timed from its start to the last byte of its body. Any answer but 200 fails the bench.
 */
export async function load(baseUrl: string, cookies: string[], pathname: string, perSession: number) {
  const ask = async (cookie: string) => {
    const began = performance.now();
    const response = await fetch(`${baseUrl}${pathname}`, { headers: { cookie }, redirect: "manual" });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${pathname} answered ${response.status}`);
    return performance.now() - began;
  };
  await Promise.all(cookies.map(ask));
  const timings: number[] = [];
  await Promise.all(
    cookies.map(async (cookie) => {
      for (let i = 0; i < perSession; i++) timings.push(await ask(cookie));
    }),
  );
  const result: LoadResult = {
    requests: timings.length,
    p50Ms: Math.round(percentile(timings, 50)),
    p95Ms: Math.round(percentile(timings, 95)),
    maxMs: Math.round(Math.max(...timings)),
  };
  return result;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const { baseUrl, cookies, pathname, perSession } = JSON.parse(input) as {
    baseUrl: string;
    cookies: string[];
    pathname: string;
    perSession: number;
  };
  process.stdout.write(JSON.stringify(await load(baseUrl, cookies, pathname, perSession)));
}
