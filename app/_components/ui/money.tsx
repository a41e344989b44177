import { formatAmountText, splitAmount } from "@/lib/format";
import { cn } from "../cn";

export type MoneyProps = {
  /** A decimal string ("1234.50", "-0.35") exactly as stored; it is never converted to a number. */
  value: string;
  /** Currency code shown before the amount ("USD 1,234.50"); leave out in columns whose header names it. */
  currency?: string;
  className?: string;
};

/**
 * An amount, grouped and with every digit as given. Negative amounts keep their minus sign and are red.
 * Right-align it in tables through the column (meta.align = "right"), so header and figures line up.
 */
export function Money({ value, currency, className }: MoneyProps) {
  const parts = splitAmount(value);
  if (!parts) {
    // Not a decimal: show the text as it is, marked, rather than hiding or "fixing" it.
    return (
      <span className={cn("font-mono text-danger-ink", className)} title="Not a decimal amount">
        {value}
      </span>
    );
  }
  return (
    <data
      value={value}
      className={cn("whitespace-nowrap tabular-nums", parts.negative ? "text-danger" : undefined, className)}
    >
      {formatAmountText(value, { currency })}
    </data>
  );
}
