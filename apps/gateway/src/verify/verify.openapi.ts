const bool = { type: 'boolean' };
const int = { type: 'integer' };
const str = { type: 'string' };
const statuses = ['valid', 'invalid', 'unknown', 'risky', 'disposable', 'catchall', 'role'];
const legacyStatuses = ['valid', 'invalid', 'unknown', 'catchall'];

const singleCurrent = {
  type: 'object',
  properties: {
    email: str,
    status: { type: 'string', enum: statuses },
    score: { type: 'number', minimum: 0, maximum: 1 },
    is_deliverable: bool,
    is_disposable: bool,
    is_catchall: bool,
    is_role: bool,
    is_free: bool,
    has_gravatar: bool,
    gravatar_url: str,
    domain: str,
    domain_age: int,
    mx_records: { type: 'array', items: str },
    domain_reputation: {
      type: 'object',
      properties: { mx_ip: str, is_listed: bool, blacklists: { type: 'array', items: str }, checked: bool },
    },
    smtp_check: bool,
    reason: str,
    smtp_response: str,
    error_message: str,
    domain_suggestion: str,
    response_time: int,
    credits_used: int,
  },
};

const singleLegacy = {
  type: 'object',
  properties: {
    email: str,
    status: { type: 'string', enum: legacyStatuses },
    result: {
      type: 'object',
      properties: Object.fromEntries(
        [
          'deliverable',
          'valid_format',
          'valid_domain',
          'valid_mx',
          'disposable',
          'role',
          'catchall',
          'free',
          'smtp_valid',
        ].map((k) => [k, bool]),
      ),
    },
    score: { type: 'number' },
    reason: { type: 'string', nullable: true },
    credits_used: int,
  },
};

const singleExample = {
  email: 'jane.doe@example.com',
  status: 'valid',
  score: 0.99,
  is_deliverable: true,
  is_disposable: false,
  is_catchall: false,
  is_role: false,
  is_free: false,
  has_gravatar: false,
  gravatar_url: '',
  domain: 'example.com',
  domain_age: 10957,
  mx_records: ['mx1.example.com', 'mx2.example.com'],
  domain_reputation: { mx_ip: '192.0.2.10', is_listed: false, blacklists: [], checked: true },
  smtp_check: true,
  reason: 'accepted',
  smtp_response: '250 2.1.5 OK',
  error_message: '',
  domain_suggestion: '',
  response_time: 412,
  credits_used: 1,
};

export const singleDocs = {
  current: singleCurrent,
  legacy: singleLegacy,
  currentExample: singleExample,
  legacyExample: {
    email: 'jane.doe@example.com',
    status: 'valid',
    result: {
      deliverable: true,
      valid_format: true,
      valid_domain: true,
      valid_mx: true,
      disposable: false,
      role: false,
      catchall: false,
      free: false,
      smtp_valid: true,
    },
    score: 0.99,
    reason: null,
    credits_used: 1,
  },
};

const bulkTotals = {
  total_emails: int,
  valid_emails: int,
  invalid_emails: int,
  credits_used: int,
  process_time: int,
};

export const bulkDocs = {
  current: {
    type: 'object',
    properties: {
      results: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            email: str,
            status: { type: 'string', enum: statuses },
            score: { type: 'number' },
            is_deliverable: bool,
            credits_used: int,
          },
        },
      },
      ...bulkTotals,
    },
  },
  legacy: {
    type: 'object',
    properties: {
      results: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            email: str,
            status: { type: 'string', enum: legacyStatuses },
            score: { type: 'number' },
            is_deliverable: bool,
            is_disposable: bool,
            is_catchall: bool,
            is_role: bool,
            is_free: bool,
            domain: str,
            check_smtp: bool,
            reason: { type: 'string', nullable: true },
            credits_used: int,
          },
        },
      },
      ...bulkTotals,
    },
  },
  currentExample: {
    results: [
      { email: 'jane.doe@example.com', status: 'valid', score: 0.9, is_deliverable: true, credits_used: 1 },
      {
        email: 'nobody@invalid.example',
        status: 'invalid',
        score: 0.1,
        is_deliverable: false,
        credits_used: 1,
      },
    ],
    total_emails: 2,
    valid_emails: 1,
    invalid_emails: 1,
    credits_used: 2,
    process_time: 84,
  },
  legacyExample: {
    results: [
      {
        email: 'jane.doe@example.com',
        status: 'valid',
        score: 0.9,
        is_deliverable: true,
        is_disposable: false,
        is_catchall: false,
        is_role: false,
        is_free: false,
        domain: 'example.com',
        check_smtp: false,
        reason: null,
        credits_used: 1,
      },
    ],
    total_emails: 1,
    valid_emails: 1,
    invalid_emails: 0,
    credits_used: 1,
    process_time: 61,
  },
};

const disposable = {
  type: 'object',
  properties: {
    email: str,
    domain: str,
    is_disposable: bool,
    checked_at: { type: 'string', format: 'date-time' },
  },
};
const disposableExample = {
  email: 'someone@mailinator.com',
  domain: 'mailinator.com',
  is_disposable: true,
  checked_at: '2026-11-22T10:00:00Z',
};

export const disposableDocs = {
  current: disposable,
  legacy: disposable,
  currentExample: disposableExample,
  legacyExample: disposableExample,
};
