import { Injectable } from '@nestjs/common';
import {
  DomainError,
  isUuid,
  type KeyCreateReply,
  type KeyListReply,
  type KeyMode,
  type KeySummary,
  Subjects,
} from '@emailverify/contracts';
import { MessageBus } from '@emailverify/messaging';
import { askForAccount } from '../common/account-request';
import type { AuthContext } from '../common/http/request-context';
import { parseInstant } from '../credits/date-range';
import type { CreateKeyDto } from './dto/keys.dto';

/** How far ahead a key's expiry may be set. */
const EXPIRY_MAX_MS = 10 * 366 * 86_400_000;

/**
 * The account's API keys, managed with one of its keys (of the `full` scope: the ScopeGuard refused the others).
 * A sandbox key sees, makes and revokes sandbox keys alone: it can never lead to a live key.
 */
@Injectable()
export class KeysService {
  constructor(private readonly bus: MessageBus) {}

  list(auth: AuthContext): Promise<KeyListReply> {
    return askForAccount(this.bus, auth, Subjects.creditsKeyList, visibleTo(auth));
  }

  /** A new key, shown this once; it answers in the default style of the key that made it. */
  create(auth: AuthContext, dto: CreateKeyDto): Promise<KeyCreateReply> {
    if (auth.mode === 'sandbox' && dto.sandbox === false)
      throw new DomainError('INSUFFICIENT_SCOPE', 'A sandbox key can only create sandbox keys', {
        field: 'sandbox',
      });
    const mode: KeyMode = auth.mode === 'sandbox' || dto.sandbox === true ? 'sandbox' : 'live';
    return askForAccount(this.bus, auth, Subjects.creditsKeyCreate, {
      name: dto.name,
      style: auth.defaultStyle,
      mode,
      scope: dto.scope ?? 'full',
      ...(dto.expires_at !== undefined ? { expiresAt: expiry(dto.expires_at) } : {}),
    });
  }

  /** Revokes another key of the account; every gateway refuses it by the time this answers. */
  revoke(auth: AuthContext, apiKeyId: string): Promise<KeySummary> {
    if (!isUuid(apiKeyId)) throw new DomainError('API_KEY_NOT_FOUND', 'API key not found');
    return askForAccount(this.bus, auth, Subjects.creditsAccountKeyRevoke, {
      apiKeyId,
      callerApiKeyId: auth.apiKeyId,
      ...visibleTo(auth),
    });
  }
}

/** A sandbox key deals with sandbox keys alone; a live key with all of the account's. */
function visibleTo(auth: AuthContext): { mode?: KeyMode } {
  return auth.mode === 'sandbox' ? { mode: 'sandbox' } : {};
}

/** expires_at as an instant in the future, within EXPIRY_MAX_MS. */
function expiry(value: string): string {
  const at = parseInstant('expires_at', value, false, { dateTimeOnly: true });
  const ahead = at.getTime() - Date.now();
  if (ahead <= 0) throw invalid('expires_at', 'expires_at must be in the future');
  if (ahead > EXPIRY_MAX_MS) throw invalid('expires_at', 'expires_at must be within 10 years');
  return at.toISOString();
}

const invalid = (field: string, message: string) => new DomainError('INVALID_REQUEST', message, { field });
