"use client";

import { useAnswerRound } from "./answer-round";
import { FormMessage } from "./form-message";

type Result = { ok: boolean; message?: string } | null | undefined;

/**
 * An action's result under its form, success or error as the result says. Each new result is its message made anew,
 * so a refusal saying what the last one said (a second wrong password) is read out again instead of left unchanged.
 */
export function ResultMessage({
  result,
  className,
  tone,
}: {
  result: Result;
  className?: string;
  /** Where an answer that is `ok` may still be one to act on (a retry still pending): its tone, said by the caller. */
  tone?: "error" | "success";
}) {
  const round = useAnswerRound(result);
  if (!result) return null;
  return (
    <FormMessage key={round} tone={tone ?? (result.ok ? "success" : "error")} className={className}>
      {result.message}
    </FormMessage>
  );
}
