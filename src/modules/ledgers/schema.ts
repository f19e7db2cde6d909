import { defineSchema } from '../../schema/registry.js';

/** A credit or debit an account's reseller writes (Kazoo's `ledgers` schema). */
export const ledgerSchema = defineSchema('ledgers', {
  type: 'object',
  required: ['source', 'usage'],
  description: 'a ledger entry: an amount credited to or debited from an account, where it comes from and what it counts',
  properties: {
    account: {
      type: 'object',
      description: 'the account (filled in by the server)',
      properties: { id: { type: 'string' }, name: { type: 'string' } },
    },
    amount: { type: 'number', minimum: 1, description: 'the amount, in currency units' },
    description: { type: 'string', description: 'what the entry is for' },
    metadata: { type: 'object', description: 'anything the writer keeps with it' },
    period: {
      type: 'object',
      description: 'the period it covers (Gregorian seconds)',
      properties: { end: { type: 'integer' }, start: { type: 'integer' } },
    },
    source: {
      type: 'object',
      required: ['id', 'service'],
      description: 'where it comes from: a service (adjustments, payments, per-minute-voip, …) and its id there',
      properties: { id: { type: 'string' }, service: { type: 'string' } },
    },
    usage: {
      type: 'object',
      required: ['quantity', 'type', 'unit'],
      description: 'what it counts',
      properties: { quantity: { type: 'integer' }, type: { type: 'string' }, unit: { type: 'string' } },
    },
  },
});
