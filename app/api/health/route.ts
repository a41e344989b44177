// GET /api/health – liveness for the start script and load balancers; reveals nothing.
import { definePublicRoute } from "@/lib/routes";

export const dynamic = "force-dynamic";

export const GET = definePublicRoute("liveness probe; answers only {status: ok}", async () =>
  Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } }),
);
