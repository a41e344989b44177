import { prettyJsonText } from "@/lib/format";
import { cn } from "../cn";
import { ScrollRegion } from "./scroll-region";

export type CodeBlockProps = {
  /** Raw JSON text (shown re-indented, never parsed, so numbers stay exact) or a value to stringify. */
  value: unknown;
  /** Accessible name of the scrollable region, e.g. "Webhook body". */
  label: string;
  className?: string;
};

/** A JSON viewer: pretty printed, scrollable, focusable so keyboard users can scroll it with the arrow keys. */
export function CodeBlock({ value, label, className }: CodeBlockProps) {
  const text = typeof value === "string" ? prettyJsonText(value) : (JSON.stringify(value, null, 2) ?? String(value));
  return (
    <ScrollRegion
      label={label}
      className={cn("max-h-96 overflow-auto rounded-md border border-line bg-subtle p-3 text-ink", className)}
    >
      <pre className="font-mono text-xs leading-relaxed">
        <code>{text}</code>
      </pre>
    </ScrollRegion>
  );
}
