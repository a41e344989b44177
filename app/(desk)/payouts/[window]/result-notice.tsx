"use client";

import { FormMessage } from "@/app/_components/forms/form-message";
import type { ConfirmResult } from "@/app/_components/ui/confirm-dialog";

/** What the last confirmed action did ("Approved 381 statements. Skipped 1: …"), read out as a status. */
export function ResultNotice({ result }: { result: ConfirmResult | null }) {
  if (!result?.ok || !result.message) return null;
  return <FormMessage tone="success">{result.message}</FormMessage>;
}
