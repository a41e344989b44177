import { useEffect, useRef, useState } from "react";

/**
 * A step asked once more before it is taken ("Reject change…", "Make payment file…"): whether the question is open,
 * and the focus that follows it: to `question` when asked (read out there; a held Enter answers nothing), back to
 * `ask` when the person goes back. `answer`, when given, is the action's latest answer: a new one closes the
 * question in the same render (a refusal opens the fields it names again).
 */
export function useAskOnceMore<Question extends HTMLElement, Ask extends HTMLElement>(answer?: unknown) {
  const [askedAt, setAskedAt] = useState<{ answer: unknown } | null>(null);
  const asking = askedAt !== null && askedAt.answer === answer;
  const question = useRef<Question>(null);
  const askButton = useRef<Ask>(null);
  const refocus = useRef<"question" | "ask" | null>(null);
  useEffect(() => {
    if (refocus.current === "question" && asking) question.current?.focus();
    if (refocus.current === "ask" && !asking) askButton.current?.focus();
    refocus.current = null;
  }, [asking]);
  return {
    asking,
    question,
    askButton,
    ask: () => {
      refocus.current = "question";
      setAskedAt({ answer });
    },
    goBack: () => {
      refocus.current = "ask";
      setAskedAt(null);
    },
  };
}
