export const SERVER_ACTIONS_KEY_PURPOSE: string;
export function serverActionsEncryptionKey(masterBase64: string): string;
export function applyServerActionsKey(env: Record<string, string | undefined>): void;
