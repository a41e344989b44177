// The statement layout thread's entry (lib/statements/pdf-render.ts starts it): it loads TypeScript the way the
// command-line programs do, then the thread's message loop.
await import("../../bin/register.mjs");
await import("./pdf-thread.ts");
