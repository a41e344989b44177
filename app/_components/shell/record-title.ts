import type { Metadata } from "next";
import { decodeParam } from "@/lib/lookup/load";

/**
 * A record page's title, naming the record ("Subscription SUB_…"): moving from one record to another changes the
 * title, which is what a screen reader hears of a navigation, and tells browser tabs and history apart. The address's
 * value as given (it is checked by the page), cut to 80 characters.
 */
export function recordTitle(kind: string, raw: string, within?: string): Metadata {
  const id = decodeParam(raw).trim();
  const named = id ? `${kind} ${id.length > 80 ? `${id.slice(0, 79)}…` : id}` : kind;
  return { title: within ? `${named} · ${within}` : named };
}
