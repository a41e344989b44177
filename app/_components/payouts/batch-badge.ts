import type { Tone } from "@/app/_components/ui/tone";

/** How a payout batch's status reads wherever a batch is listed or shown. */
export const BATCH_BADGE: Record<string, { label: string; tone: Tone }> = {
  draft: { label: "Draft batch", tone: "info" },
  approved: { label: "Approved", tone: "warning" },
  paid: { label: "Paid", tone: "success" },
};
