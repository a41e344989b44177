import { DateTime } from "@/app/_components/ui/date-time";
import { Money } from "@/app/_components/ui/money";
import { Absent } from "@/app/_components/ui/absent";

/** An amount that may be null (a never-paid cycle). */
export function MaybeMoney({ value, currency }: { value: string | null | undefined; currency?: string }) {
  if (value === null || value === undefined) return <Absent />;
  return <Money value={value} currency={currency} />;
}

/** A timestamp that may be null. */
export function MaybeTime({
  value,
  focusable = true,
}: {
  value: string | Date | null | undefined;
  focusable?: boolean;
}) {
  if (value === null || value === undefined) return <Absent />;
  return <DateTime value={typeof value === "string" ? value : value.toISOString()} focusable={focusable} />;
}
