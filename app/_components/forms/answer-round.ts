import { useState } from "react";

/**
 * How many answers an action has given on this page: a new number with each new answer, also one that says what the
 * last one said (a second wrong password), so that a message keyed by it is made anew and read out again.
 */
export function useAnswerRound(answer: unknown): number {
  const [seen, setSeen] = useState({ answer, round: 0 });
  if (seen.answer !== answer) setSeen({ answer, round: seen.round + 1 });
  return seen.answer === answer ? seen.round : seen.round + 1;
}
