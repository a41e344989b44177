"use client";

import { useId } from "react";
import {
  Bar,
  BarChart as RechartsBarChart,
  CartesianGrid,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
  type TooltipContentProps,
} from "recharts";
import { formatAmountText } from "@/lib/format";
import { Money } from "../ui/money";

export type ChartColor = "chart-1" | "chart-2" | "chart-3" | "chart-4" | "chart-5";

export type BarSeries = { key: string; label: string; color?: ChartColor };

/** One category (a month, a recipient) with a decimal string per series key. */
export type BarDatum = { label: string; values: Record<string, string> };

export type BarChartProps = {
  /** Shown above the chart; names the figure. */
  title: string;
  description?: string;
  data: BarDatum[];
  series: BarSeries[];
  /** Currency code for the figures ("USD"), shown in the tooltip and the table. */
  currency?: string;
  /** "columns": categories along the bottom (months); "bars": categories down the side (top recipients). */
  layout?: "columns" | "bars";
  height?: number;
};

const DEFAULT_COLORS: ChartColor[] = ["chart-1", "chart-2", "chart-3", "chart-4", "chart-5"];
const AXIS_FORMAT = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

/**
 * Grouped bars for amounts (the one place Recharts is used). The picture is for sighted readers; the exact figures
 * are in the table under "Show the figures", which is what screen readers and keyboard users get, and what anyone
 * should read before paying.
 */
export function BarChart({
  title,
  description,
  data,
  series,
  currency,
  layout = "columns",
  height = 280,
}: BarChartProps) {
  const captionId = useId();
  // Numbers for plotting only: bar lengths and axis ticks tolerate float rounding, and no figure is ever read back
  // from them. Tooltip and table show the original decimal strings.
  const plotted = data.map((datum) => ({
    label: datum.label,
    ...Object.fromEntries(series.map((s) => [s.key, Number(datum.values[s.key] ?? "0")])),
  }));
  const byLabel = new Map(data.map((datum) => [datum.label, datum]));
  const horizontal = layout === "bars";

  return (
    <figure aria-labelledby={captionId} className="flex flex-col gap-2">
      <figcaption id={captionId}>
        <span className="font-semibold text-ink">{title}</span>
        {description ? <span className="block text-ink-muted">{description}</span> : null}
      </figcaption>

      <div aria-hidden="true" style={{ height: horizontal ? Math.max(height, data.length * 28 + 60) : height }}>
        <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height }}>
          <RechartsBarChart
            data={plotted}
            layout={horizontal ? "vertical" : "horizontal"}
            accessibilityLayer={false}
            margin={{ top: 4, right: 8, bottom: 0, left: horizontal ? 8 : 0 }}
            barGap={2}
          >
            <CartesianGrid stroke="var(--color-line)" vertical={horizontal} horizontal={!horizontal} />
            {horizontal ? (
              <>
                <XAxis
                  type="number"
                  tickFormatter={(n: number) => AXIS_FORMAT.format(n)}
                  tick={{ fontSize: 11, fill: "var(--color-ink-muted)" }}
                  stroke="var(--color-line)"
                />
                <YAxis
                  type="category"
                  dataKey="label"
                  width={140}
                  tick={{ fontSize: 11, fill: "var(--color-ink-muted)" }}
                  stroke="var(--color-line)"
                />
              </>
            ) : (
              <>
                <XAxis
                  dataKey="label"
                  tick={{ fontSize: 11, fill: "var(--color-ink-muted)" }}
                  stroke="var(--color-line)"
                />
                <YAxis
                  tickFormatter={(n: number) => AXIS_FORMAT.format(n)}
                  width={56}
                  tick={{ fontSize: 11, fill: "var(--color-ink-muted)" }}
                  stroke="var(--color-line)"
                />
              </>
            )}
            <Tooltip
              cursor={{ fill: "var(--color-subtle)" }}
              content={(props: TooltipContentProps) => (
                <ChartTooltip
                  label={props.active ? props.label : undefined}
                  byLabel={byLabel}
                  series={series}
                  currency={currency}
                />
              )}
            />
            {/* Each series' colour is its swatch's; the name is in the text colour, which reads on the page at any
                size (a name in the lighter series colours, green and amber, fell below 4.5:1 at 12 px). */}
            <Legend
              wrapperStyle={{ fontSize: 12 }}
              itemSorter={null}
              formatter={(value) => <span className="text-ink">{value}</span>}
            />
            {series.map((s, index) => (
              <Bar
                key={s.key}
                dataKey={s.key}
                name={s.label}
                fill={`var(--color-${s.color ?? DEFAULT_COLORS[index % DEFAULT_COLORS.length]})`}
                radius={horizontal ? [0, 2, 2, 0] : [2, 2, 0, 0]}
                isAnimationActive={false}
              />
            ))}
          </RechartsBarChart>
        </ResponsiveContainer>
      </div>

      <details className="text-sm">
        <summary className="w-fit cursor-pointer rounded text-accent hover:underline">Show the figures</summary>
        <div className="mt-2 overflow-x-auto">
          <table className="w-full border-collapse text-sm">
            <caption className="sr-only">{title}</caption>
            <thead>
              <tr className="border-b border-line text-xs text-ink-muted">
                <th scope="col" className="px-2 py-1 text-left font-semibold">
                  {horizontal ? "Name" : "Period"}
                </th>
                {series.map((s) => (
                  <th key={s.key} scope="col" className="px-2 py-1 text-right font-semibold">
                    {s.label}
                    {currency ? ` (${currency})` : ""}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.map((datum) => (
                <tr key={datum.label} className="border-b border-line last:border-b-0">
                  <th scope="row" className="px-2 py-1 text-left font-normal">
                    {datum.label}
                  </th>
                  {series.map((s) => (
                    <td key={s.key} className="px-2 py-1 text-right">
                      <Money value={datum.values[s.key] ?? "0"} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

function ChartTooltip({
  label,
  byLabel,
  series,
  currency,
}: {
  label: string | number | undefined;
  byLabel: Map<string, BarDatum>;
  series: BarSeries[];
  currency?: string;
}) {
  const datum = label === undefined ? undefined : byLabel.get(String(label));
  if (!datum) return null;
  return (
    <div className="rounded-md border border-line bg-surface px-2.5 py-2 text-xs shadow-md">
      <p className="mb-1 font-semibold text-ink">{datum.label}</p>
      <dl className="grid grid-cols-[auto_auto] gap-x-3 gap-y-0.5">
        {series.map((s) => {
          const value = datum.values[s.key] ?? "0";
          let text = value;
          try {
            text = formatAmountText(value, { currency });
          } catch {
            // Keep the raw text; the table below marks it as not a decimal.
          }
          return (
            <div key={s.key} className="contents">
              <dt className="text-ink-muted">{s.label}</dt>
              <dd className="text-right tabular-nums text-ink">{text}</dd>
            </div>
          );
        })}
      </dl>
    </div>
  );
}
