// GET /api/health/ready – readiness for load balancers: the database answers and its migrations are current.
import { getDb } from "@/db";
import { checkReadiness } from "@/lib/health";
import { definePublicRoute } from "@/lib/routes";

export const dynamic = "force-dynamic";

export const GET = definePublicRoute("readiness probe; answers only ready or the reason it is not", async () => {
  const readiness = await checkReadiness(getDb());
  const body = readiness.ready ? { status: "ready" } : { status: "not_ready", reason: readiness.reason };
  return Response.json(body, { status: readiness.ready ? 200 : 503, headers: { "Cache-Control": "no-store" } });
});
