import { defineSchema } from '../../schema/registry.js';

const text = (description: string) => ({ type: 'string', description });

/**
 * A number's document (Kazoo's `phone_numbers` schema): the fields that configure its features —
 * `cnam` (the caller id name sent, and whether callers' names are looked up), `e911` (the address
 * emergency services get), `prepend` (`{enabled, name, number}` put before the caller id, kept as sent),
 * `carrier_name` — and `porting`; any other field is kept as sent.
 */
export const phoneNumberSchema = defineSchema('phone_numbers', {
  type: 'object',
  properties: {
    carrier_name: { type: 'string', minLength: 1, maxLength: 30, description: 'the carrier name shown for the number (super-duper admins)' },
    cnam: {
      type: 'object',
      properties: {
        display_name: { type: 'string', minLength: 1, maxLength: 15, description: 'the caller id name sent with calls from the number' },
        inbound_lookup: { type: 'boolean', description: "look up callers' names on calls to the number" },
      },
    },
    create_with_state: {
      type: 'string',
      enum: ['aging', 'available', 'deleted', 'discovery', 'in_service', 'port_in', 'port_out', 'released', 'reserved'],
      description: 'the state to create numbers in',
    },
    e911: {
      type: 'object',
      required: ['locality', 'postal_code', 'region', 'street_address'],
      properties: {
        activated_time: text('when the address was provisioned'),
        caller_name: { type: 'string', minLength: 3, description: 'the name emergency services see' },
        extended_address: text('suite, floor or apartment'),
        latitude: text("the provisioning system's latitude of the address"),
        legacy_data: {
          type: 'object',
          properties: { house_number: text('house number'), predirectional: text('predirectional'), streetname: text('street name'), suite: text('suite') },
        },
        locality: text('the city where the number is in service'),
        location_id: text("the provisioning system's id of the address"),
        longitude: text("the provisioning system's longitude of the address"),
        notification_contact_emails: { type: 'array', items: { type: 'string' }, default: [], description: 'who is told when the number calls emergency services' },
        plus_four: text('the extended postal code'),
        postal_code: text('the postal code where the number is in service'),
        region: { type: 'string', minLength: 2, maxLength: 2, description: 'the region (state) where the number is in service' },
        status: { type: 'string', enum: ['INVALID', 'GEOCODED', 'PROVISIONED', 'REMOVED', 'ERROR'], description: "the provisioning system's status of the address" },
        street_address: text('the street address where the number is in service'),
      },
    },
    porting: {
      type: 'object',
      description: 'porting (in) information for the number',
      properties: {
        billing_account_id: text('the account id the losing carrier has on file'),
        billing_extended_address: text('the suite/floor the losing carrier has on file'),
        billing_locality: text('the city the losing carrier has on file'),
        billing_name: text('the name the losing carrier has on file'),
        billing_postal_code: text('the postal code the losing carrier has on file'),
        billing_region: text('the region the losing carrier has on file'),
        billing_street_address: text('the street address the losing carrier has on file'),
        billing_telephone_number: text('the billing telephone number'),
        comments: { type: 'array', items: { type: 'string' } },
        customer_contact: text('a number the owner can be reached at'),
        port_id: text('the port request'),
        requested_port_date: text('the requested port date'),
        service_provider: text('the losing carrier'),
      },
    },
    ui_metadata: { type: 'object' },
  },
});

/**
 * The numbers one collection request names at most: each is its own transaction on the event loop
 * (about 0.13 ms: 1,000 activated in 136 ms, 100 in 60 ms including the first request's start), so
 * a request holds it a few milliseconds; larger sets are resource jobs, on their thread.
 */
export const MAX_COLLECTION_NUMBERS = 100;

/** A collection request: the numbers, and the fields each number's document gets. */
export const numberCollectionSchema = {
  type: 'object',
  required: ['numbers'],
  properties: {
    numbers: { type: 'array', minItems: 1, maxItems: MAX_COLLECTION_NUMBERS, uniqueItems: true, items: { type: 'string' }, description: 'the numbers (E.164, or as the converters read them)' },
  },
};

/** What a number search asks (Kazoo's `find_numbers`), read from the query string. */
export const findNumbersSchema = defineSchema('find_numbers', {
  type: 'object',
  required: ['prefix'],
  properties: {
    country: { type: 'string', minLength: 2, maxLength: 2, default: 'US' },
    prefix: { type: 'string', minLength: 3, maxLength: 10 },
    quantity: { type: 'integer', minimum: 1, default: 1 },
  },
});
