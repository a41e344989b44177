"use client";

import { type RefObject, useEffect, useRef } from "react";

/** The heading of a failure's page, focused once it shows so that it is announced. */
export function useFocusedOnShow<T extends HTMLElement>(): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return ref;
}

/** "If it keeps happening, tell an admin the reference …": the server's log holds the error under that reference. */
export function TellAnAdmin({ digest }: { digest: string | undefined }) {
  return (
    <>
      If it keeps happening, tell an admin
      {digest ? (
        <>
          {" "}
          the reference <span className="font-mono text-ink">{digest}</span>
        </>
      ) : null}
      .
    </>
  );
}
