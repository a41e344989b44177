"use client";

import { type ChangeEvent, type KeyboardEvent, useRef, useState } from "react";

/**
 * A native select that reloads the table when its value changes: chosen with the mouse it applies at once; moved
 * through with the arrow keys (which change a closed select's value option by option on some systems) it applies on
 * Enter or when focus leaves it, not once per option passed (WCAG 3.2.2). Escape leaves it as it was. Spread the
 * returned props on the select.
 */
export function useSelectOnCommit(current: string, apply: (value: string) => void) {
  const [pending, setPending] = useState<string | null>(null);
  const byKeyboard = useRef(false);
  const commit = (value: string) => {
    setPending(null);
    if (value !== current) apply(value);
  };
  return {
    value: pending ?? current,
    onKeyDown: (event: KeyboardEvent<HTMLSelectElement>) => {
      byKeyboard.current = event.key !== "Enter";
      if (event.key === "Enter" && pending !== null) commit(pending);
      if (event.key === "Escape") setPending(null);
    },
    onKeyUp: (event: KeyboardEvent<HTMLSelectElement>) => {
      // An option picked with Enter from the open list reaches the select only as this key's release.
      if (event.key === "Enter" && pending !== null) commit(pending);
    },
    onMouseDown: () => {
      byKeyboard.current = false;
    },
    onChange: (event: ChangeEvent<HTMLSelectElement>) => {
      if (byKeyboard.current) setPending(event.target.value);
      else commit(event.target.value);
    },
    onBlur: () => {
      if (pending !== null) commit(pending);
    },
  };
}
