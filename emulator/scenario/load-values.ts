import type { Decimal } from "decimal.js";
import { money } from "@/lib/money";
import { parseInstant, type Millis } from "../time";

/** A scenario that does not load; the message names the offending path. */
export class ScenarioError extends Error {}

export function instant(text: string, where: string): Millis {
  const at = parseInstant(text);
  if (at === null) throw new ScenarioError(`${where}: not a timestamp: ${text}`);
  return at;
}

const moneyMemo = new Map<string, Decimal>();

/** Parses a decimal string of the file once per distinct value (Decimals are immutable). */
export function amountOf(text: string): Decimal {
  let value = moneyMemo.get(text);
  if (!value) {
    value = money(text);
    if (moneyMemo.size >= 50_000) moneyMemo.clear();
    moneyMemo.set(text, value);
  }
  return value;
}
