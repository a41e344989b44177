import type { Hono } from "hono";
import { z } from "zod";
import { ApiError } from "../errors";
import { readJsonObject } from "../http/middleware";
import { closeDispute, disputeView, openDispute } from "../ledger/disputes";
import type { AppEnv, EmulatorRuntime } from "../runtime";
import { parseBody } from "./admin-parse";

const openSchema = z.object({
  period_id: z.number().int().positive().optional(),
  subscription_id: z.string().min(1).optional(),
  period_seq: z.number().int().positive().optional(),
  reason: z.string().min(1).max(100).default("fraudulent"),
  usd_amount: z
    .string()
    .regex(/^\d{1,9}(\.\d{1,2})?$/)
    .optional(),
  emit_events: z.boolean().default(true),
});

const closeSchema = z.object({ dispute_status: z.enum(["won", "lost"]), emit_events: z.boolean().default(true) });

/** Chargebacks on a renewal's card charge: open one on a period, close it won or lost (admin API, loopback only). */
export function addDisputeRoutes(admin: Hono<AppEnv>, runtime: EmulatorRuntime): void {
  // POST /__emulator/disputes – {period_id | subscription_id + period_seq, reason?, usd_amount?, emit_events?}
  admin.post("/disputes", async (c) => {
    const body = parseBody(openSchema, await readJsonObject(c, "ADMIN_INVALID"));
    const ledger = runtime.ledger;
    let period = body.period_id !== undefined ? ledger.periods.get(body.period_id) : undefined;
    if (body.period_id === undefined) {
      const sub = body.subscription_id ? ledger.subscriptions.get(body.subscription_id) : undefined;
      period = sub?.periods.find((p) => p.periodSeq === body.period_seq);
    }
    if (!period)
      throw new ApiError(404, "ADMIN_NOT_FOUND", "No such period: give period_id, or subscription_id and period_seq.");
    const dispute = openDispute(ledger, period, {
      reason: body.reason,
      usdAmount: body.usd_amount ?? null,
      emitEvents: body.emit_events,
    });
    return c.json(disputeView(dispute), 201);
  });

  // GET /__emulator/disputes – every dispute (filter: game_id)
  admin.get("/disputes", (c) => {
    const gameId = c.req.query("game_id");
    return c.json({ disputes: runtime.ledger.disputes.filter((d) => !gameId || d.gameId === gameId).map(disputeView) });
  });

  // POST /__emulator/disputes/{dispute_id}/close – {dispute_status: "won" | "lost", emit_events?}
  admin.post("/disputes/:disputeId/close", async (c) => {
    const body = parseBody(closeSchema, await readJsonObject(c, "ADMIN_INVALID"));
    const dispute = runtime.ledger.disputes.find((d) => d.disputeId === c.req.param("disputeId"));
    if (!dispute) throw new ApiError(404, "ADMIN_NOT_FOUND", "No such dispute.");
    return c.json(disputeView(closeDispute(runtime.ledger, dispute, body.dispute_status, body.emit_events)));
  });
}
