import type { AppErrorCode } from "./errors";

/** What every server action answers (lib/actions.ts); safe to import from client components. */
export type ActionResult<T = undefined> =
  | { ok: true; message?: string; data?: T }
  | {
      ok: false;
      code: AppErrorCode | "INTERNAL";
      message: string;
      fieldErrors?: Record<string, string>;
      /** What was typed, so a form can show it again (React resets a form after its action); never secrets. */
      values?: Record<string, string>;
    };

/** The hidden form field naming the game a page was showing when its form was submitted. */
export const EXPECTED_GAME_FIELD = "_game";
