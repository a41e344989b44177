import { Badge } from "@/app/_components/ui/badge";
import { FLAG_INFO, isPayoutFlag } from "@/lib/payouts/flag-info";

export const STATE_LABELS: Record<
  string,
  { label: string; tone: "neutral" | "info" | "success" | "warning" | "danger" }
> = {
  draft: { label: "Draft", tone: "neutral" },
  approved: { label: "Approved", tone: "info" },
  held: { label: "Held", tone: "warning" },
  in_payment: { label: "In payment", tone: "info" },
  paid: { label: "Paid", tone: "success" },
  returned: { label: "Payment returned", tone: "danger" },
  carried: { label: "Carried forward", tone: "neutral" },
};

/**
 * A statement's state as its badge says it. A returned statement whose payment was recorded paid by mistake and
 * undone (the money never left) is owed again like one whose payment came back, but says so.
 */
export function stateLabel(state: string, undone = false): (typeof STATE_LABELS)[string] {
  if (state === "returned" && undone) return { label: "Payment undone", tone: "warning" };
  return STATE_LABELS[state] ?? { label: state, tone: "neutral" };
}

/** The table's filter by state: returned statements include those undone. */
export const STATE_FILTER_OPTIONS = Object.entries(STATE_LABELS).map(([value, s]) => ({
  value,
  label: value === "returned" ? "Payment returned or undone" : s.label,
}));

/** A recipient's flags; overridden ones say so (they no longer block). */
export function FlagBadges({
  flags,
  overridden = [],
  wrap = false,
}: {
  flags: readonly string[];
  overridden?: readonly string[];
  /**
   * In a table column: each label may break between its words, and takes no focus (the window's flags list says what
   * each means).
   */
  wrap?: boolean;
}) {
  if (flags.length === 0) return null;
  return (
    <span className="flex flex-wrap gap-1">
      {flags.map((flag) => {
        const info = isPayoutFlag(flag) ? FLAG_INFO[flag] : { label: flag, meaning: "" };
        const isOverridden = overridden.includes(flag);
        return (
          <Badge
            key={flag}
            tone={isOverridden ? "neutral" : "danger"}
            title={info.meaning}
            wrap={wrap}
            focusable={!wrap}
          >
            {info.label}
            {isOverridden ? " (overridden)" : ""}
          </Badge>
        );
      })}
    </span>
  );
}
