import { Badge } from "@/app/_components/ui/badge";
import type { Tone } from "@/app/_components/ui/tone";
import { Absent } from "@/app/_components/ui/absent";

const SUBSCRIPTION_TONES: Record<string, Tone> = {
  active: "success",
  past_due: "warning",
  awaiting_authentication: "warning",
  pending_pcstore_authorization: "warning",
  canceled: "neutral",
  expired: "neutral",
};

export function SubscriptionStatusBadge({
  status,
  cancelAtPeriodEnd,
}: {
  status: string;
  cancelAtPeriodEnd?: boolean;
}) {
  return (
    <span className="inline-flex flex-wrap gap-1">
      <Badge tone={SUBSCRIPTION_TONES[status] ?? "info"}>{status.replaceAll("_", " ")}</Badge>
      {cancelAtPeriodEnd ? <Badge tone="warning">cancels at period end</Badge> : null}
    </span>
  );
}

const PERIOD_TONES: Record<string, Tone> = {
  paid: "success",
  pending: "info",
  failed: "danger",
  forgiven: "neutral",
  refunded: "warning",
};

export function PeriodStatusBadge({ status, partlyRefunded }: { status: string; partlyRefunded?: boolean }) {
  return (
    <span className="inline-flex flex-wrap gap-1">
      <Badge tone={PERIOD_TONES[status] ?? "neutral"}>{status}</Badge>
      {partlyRefunded ? <Badge tone="warning">partly refunded</Badge> : null}
    </span>
  );
}

const ATTEMPT_LABELS: Record<string, { label: string; tone: Tone }> = {
  pending: { label: "pending", tone: "info" },
  succeeded: { label: "refunded", tone: "success" },
  failed: { label: "refused", tone: "neutral" },
  needs_attention: { label: "needs manual attention", tone: "danger" },
  resolved: { label: "settled by hand", tone: "neutral" },
};

/** An attempt's state; `calls`: how many times it was sent (a failed one never sent was not refused by the service). */
export function AttemptStatusBadge({ status, calls }: { status: string; calls: number }) {
  const entry =
    status === "failed" && calls === 0
      ? { label: "not sent", tone: "neutral" as Tone }
      : (ATTEMPT_LABELS[status] ?? { label: status, tone: "neutral" as Tone });
  return <Badge tone={entry.tone}>{entry.label}</Badge>;
}

export function YesNo({ value }: { value: boolean | null | undefined }) {
  if (value === null || value === undefined) return <Absent />;
  return <>{value ? "Yes" : "No"}</>;
}
