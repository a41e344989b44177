/**
 * A process that makes one refund and can be killed at a chosen step (tests/refunds/crash.test.ts). Run with
 * `node --import ./bin/register.mjs tests/refunds/crash-child.ts '<json>'`; the JSON names the database, the refund,
 * and the step to stop at: "before-call" (the attempt is marked sent, nothing has gone out) or "after-answer" (the
 * service answered, nothing is stored yet); any other step runs on, and the test kills the process from outside. At
 * the step, the process says so on stdout as one JSON line and waits to be killed.
 */
import { createDb } from "@/db";
import { requestRefund, type RefundActor, type RefundRequest } from "@/lib/refunds/attempts";

type Args = {
  databaseUrl: string;
  request: RefundRequest;
  actor: RefundActor;
  stopAt: "before-call" | "after-answer" | "none";
};

const args = JSON.parse(process.argv[2] ?? "{}") as Args;
const db = createDb(args.databaseUrl, { max: 2 });

function say(step: string, detail: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ step, ...detail })}\n`);
}

const stopHere = (step: string) => async (attempt: { id: string }) => {
  say(step, { attemptId: attempt.id });
  // Held here until killed; the timer keeps the process alive however long that takes.
  setInterval(() => {}, 60_000);
  await new Promise(() => {});
};

say("started");
const outcome = await requestRefund(db, args.request, args.actor, {
  hooks: {
    beforeCall: args.stopAt === "before-call" ? stopHere("before-call") : undefined,
    afterAnswer: args.stopAt === "after-answer" ? stopHere("after-answer") : undefined,
  },
});
say("finished", { state: outcome.state });
await db.destroy();
