/** The result a shell form shows: the small object every server action returns (only ok and message are read). */
export type ShellActionState = { ok: boolean; message?: string } | null;

/**
 * A server action as the shell's forms call it through useActionState (previous state first, then the form);
 * the forms keep working before hydration.
 */
export type ShellAction = (previous: ShellActionState, formData: FormData) => Promise<ShellActionState>;
