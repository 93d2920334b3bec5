export const creditsSchemas = {
  current: {
    type: 'object',
    required: [
      'account_id',
      'api_key_id',
      'api_key_name',
      'credits_balance',
      'credits_consumed',
      'credits_added',
      'last_updated',
    ],
    properties: {
      account_id: { type: 'string' },
      api_key_id: { type: 'string' },
      api_key_name: { type: 'string' },
      credits_balance: { type: 'integer' },
      credits_consumed: { type: 'integer' },
      credits_added: { type: 'integer' },
      last_updated: { type: 'string', format: 'date-time' },
    },
  },
  legacy: {
    type: 'object',
    required: ['available', 'used', 'total', 'plan', 'resets_at', 'rate_limit'],
    properties: {
      available: { type: 'integer' },
      used: { type: 'integer' },
      total: { type: 'integer' },
      plan: { type: 'string' },
      resets_at: { type: 'string', format: 'date-time' },
      rate_limit: {
        type: 'object',
        required: ['requests_per_hour', 'remaining'],
        properties: { requests_per_hour: { type: 'integer' }, remaining: { type: 'integer' } },
      },
    },
  },
};

export const creditsExamples = {
  currentExample: {
    account_id: '6f1c2b1e-6a1d-4c57-9a43-2d1f1f3b9a10',
    api_key_id: '0b8f3a52-93a4-4f0e-8d63-0e5f1d2c7a11',
    api_key_name: 'default',
    credits_balance: 950,
    credits_consumed: 50,
    credits_added: 1000,
    last_updated: '2026-11-22T10:00:00.000Z',
  },
  legacyExample: {
    available: 950,
    used: 50,
    total: 1000,
    plan: 'payg',
    resets_at: '2026-11-22T10:01:00.000Z',
    rate_limit: { requests_per_hour: 36000, remaining: 599 },
  },
};
