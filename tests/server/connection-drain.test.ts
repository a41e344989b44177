import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
let child: ChildProcess | null = null;

afterEach(() => {
  child?.kill("SIGKILL");
  child = null;
});

/** Starts the child server; resolves with its port and a way to wait for a line of its output. */
async function startServer(env: Record<string, string> = {}) {
  const started = spawn(
    process.execPath,
    ["--import", "./bin/register.mjs", "tests/server/connection-drain-child.ts"],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: "", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  child = started;
  let output = "";
  const waiters: { text: string; resolve: () => void }[] = [];
  started.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters) if (output.includes(waiter.text)) waiter.resolve();
  });
  const seen = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (output.includes(text)) return resolve();
      waiters.push({ text, resolve });
      started.once("exit", () => reject(new Error(`the server ended before "${text}":\n${output}`)));
    });
  const exited = new Promise<number | null>((resolve) => started.once("exit", (code) => resolve(code)));
  await seen("listening on ");
  const port = Number(/listening on (\d+)/.exec(output)?.[1]);
  return { port, seen, exited };
}

type Answer = { status: number; body: string; socketClosedByServer: Promise<void> };

function get(agent: http.Agent, port: number, pathname: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path: pathname, agent }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => {
        const socket = request.socket;
        const socketClosedByServer = new Promise<void>((closed) => {
          if (!socket || socket.destroyed) return closed();
          socket.once("close", () => closed());
        });
        resolve({ status: response.statusCode ?? 0, body, socketClosedByServer });
      });
    });
    request.on("error", reject);
  });
}

describe("a stopping app server's keep-alive connections", () => {
  it("end with the answer under way, so the server exits then, not at the keep-alive timeout", async () => {
    const server = await startServer();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // The first answer leaves its connection open; the second, on the same connection, is under way at the stop.
    expect((await get(agent, server.port, "/fast")).body).toBe("fast answer");
    const slow = get(agent, server.port, "/slow");
    await server.seen("slow answer begun");
    child?.kill("SIGTERM");
    const answer = await slow;
    expect(answer).toMatchObject({ status: 200, body: "slow answer" });
    // The client keeps the connection (its agent would reuse it): only the server can have closed it.
    await answer.socketClosedByServer;
    expect(await server.exited).toBe(143);
    agent.destroy();
  });

  it("without the drain, the connection outlives the stop (what the drain is for)", async () => {
    const server = await startServer({ DRAIN: "off" });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const slow = get(agent, server.port, "/slow");
    await server.seen("slow answer begun");
    child?.kill("SIGTERM");
    expect((await slow).body).toBe("slow answer");
    // A second later the server is still waiting on the open connection; closing it from this side lets it exit.
    const state = await Promise.race([
      server.exited.then(() => "exited"),
      new Promise((resolve) => setTimeout(() => resolve("waiting"), 1_000)),
    ]);
    expect(state).toBe("waiting");
    agent.destroy();
    expect(await server.exited).toBe(143);
  });
});
