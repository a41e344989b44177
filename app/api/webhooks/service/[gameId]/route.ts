// POST /api/webhooks/service/[gameId] – verified service events
import { getDb } from "@/db";
import { definePublicRoute } from "@/lib/routes";
import { receiveWebhook } from "@/lib/webhooks/receive";

export const dynamic = "force-dynamic";

export const POST = definePublicRoute<{ gameId: string }>(
  "verified by the service's HMAC signature, not a session",
  async (request, context) => {
    const { gameId } = await context.params;
    return receiveWebhook(request, gameId, { db: getDb() });
  },
);
