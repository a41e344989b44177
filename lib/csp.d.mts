export function contentSecurityPolicy(options?: { nonce?: string; dev?: boolean }): string;
