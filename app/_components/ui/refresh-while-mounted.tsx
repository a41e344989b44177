"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

const FIRST_MS = 2_000;
const LONGEST_MS = 30_000;

/**
 * Reads the page again from the server while this is shown, for a state that settles elsewhere (a refund another
 * person or process is finishing): after 2 s, then twice as long each time up to 30 s, and only while the tab is
 * visible. Once the page no longer renders it (the state settled), it stops.
 */
export function RefreshWhileMounted() {
  const router = useRouter();
  useEffect(() => {
    let delay = FIRST_MS;
    let timer: ReturnType<typeof setTimeout>;
    const tick = () => {
      if (document.visibilityState === "visible") router.refresh();
      delay = Math.min(delay * 2, LONGEST_MS);
      timer = setTimeout(tick, delay);
    };
    timer = setTimeout(tick, delay);
    return () => clearTimeout(timer);
  }, [router]);
  return null;
}
