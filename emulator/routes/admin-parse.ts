import type { z } from "zod";
import { ApiError } from "../errors";
import { parseInstant } from "../time";

/** The admin API's body check: the first issue as one ADMIN_INVALID line. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError(400, "ADMIN_INVALID", `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

export function instantOrThrow(text: string, name: string): number {
  const at = parseInstant(text);
  if (at === null) throw new ApiError(400, "ADMIN_INVALID", `${name} is not an ISO 8601 timestamp.`);
  return at;
}
