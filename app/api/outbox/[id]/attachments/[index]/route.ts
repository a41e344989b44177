// GET /api/outbox/[id]/attachments/[index] – an attachment of a message the mail catcher received (admins)
import { z } from "zod";
import { getDb } from "@/db";
import { AppError } from "@/lib/errors";
import { readOutboxAttachment } from "@/lib/mail/outbox";
import { defineRoute } from "@/lib/routes";

const paramsSchema = z.object({
  id: z.uuid(),
  index: z
    .string()
    .regex(/^\d{1,3}$/)
    .transform(Number),
});

export const GET = defineRoute<{ id: string; index: string }>("admin", async (_request, { params }) => {
  const parsed = paramsSchema.safeParse(params);
  if (!parsed.success) throw new AppError("NOT_FOUND", "No such attachment.");
  const attachment = await readOutboxAttachment(getDb(), parsed.data.id, parsed.data.index);
  if (!attachment) throw new AppError("NOT_FOUND", "No such attachment.");
  const filename = attachment.filename.replace(/[^\w.-]/g, "_");
  return new Response(new Uint8Array(attachment.content), {
    headers: {
      "Content-Type": attachment.contentType === "application/pdf" ? "application/pdf" : "application/octet-stream",
      "Content-Disposition": `attachment; filename="${filename}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
});
