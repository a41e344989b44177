import { countOf, formatCount, readsAfterLabel } from "@/lib/format";
import type { Skipped } from "./transition";

/** A recipient in running text: "Kim Lee (#42)", or "#42" when the service could not name them. */
export function recipientInWords(recipientPlayerId: number, name: string | null): string {
  return name ? `${name} (#${recipientPlayerId})` : `#${recipientPlayerId}`;
}

/** One statement a change left as it was, in running text: "Kim Lee (#42) is in a payment file". */
export function skippedInWords(skipped: Pick<Skipped, "recipientPlayerId" | "name" | "reason">): string {
  const who = recipientInWords(skipped.recipientPlayerId, skipped.name);
  const reason = skipped.reason.trim().replace(/\.$/, "");
  return readsAfterLabel(reason) ? `${who} ${reason}` : `${who}: ${reason}`;
}

/** What a change of several statements did: "Held 3 statements. Skipped 2: Kim Lee (#42) is paid; #43 is held." */
export function describeBulk(verb: string, result: { changed: number; skipped: readonly Skipped[] }): string {
  const done = `${verb} ${countOf(result.changed, "statement")}.`;
  if (result.skipped.length === 0) return done;
  const sample = result.skipped.slice(0, 3).map(skippedInWords).join("; ");
  const more = result.skipped.length - 3;
  const rest = more > 0 ? `; and ${formatCount(more)} more` : "";
  return `${done} Skipped ${formatCount(result.skipped.length)}: ${sample}${rest}.`;
}
