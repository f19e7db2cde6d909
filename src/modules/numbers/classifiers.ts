import type { Core } from '../../core-type.js';
import { isObject } from '../../util/json.js';
import { linearExec } from '../../util/linear-regex.js';
import { NUMBER_MANAGER_CATEGORY, normalizeSystemNumber } from './converters.js';

/**
 * Kazoo's built-in number classes (`knm_converters`), tried in this order: the first whose
 * `regex` matches a number (as E.164) classifies it.
 */
export const DEFAULT_CLASSIFIERS: Readonly<Record<string, Record<string, unknown>>> = {
  tollfree_us: { regex: '^\\+1((?:800|88\\d|877|866|855|844|833|822)\\d{7})$', friendly_name: 'US TollFree', pretty_print: 'SS(###) ### - ####' },
  toll_us: { regex: '^\\+1(900\\d{7})$', friendly_name: 'US Toll', pretty_print: 'SS(###) ### - ####' },
  emergency: { regex: '^(911|922|933|833|811|711|999)$', emergency: true, friendly_name: 'Emergency Dispatcher' },
  caribbean: {
    regex: '^\\+?1((?:684|264|268|242|246|441|284|345|767|809|829|849|473|671|876|664|670|787|939|869|758|784|721|868|649|340)\\d{7})$',
    friendly_name: 'Caribbean',
    pretty_print: 'SS(###) ### - ####',
  },
  did_us: { regex: '^(\\+?1)?([2-9][0-9]{2}[2-9][0-9]{6})$', friendly_name: 'US DID', pretty_print: 'SS(###) ### - ####' },
  international: { regex: '^\\+([2-9]\\d{7,})$', friendly_name: 'International' },
  unknown: { regex: '^(.*)$', friendly_name: 'Unknown' },
};

/**
 * The number classes as Kazoo's `knm_converters:available_classifiers` answers them: the system's
 * `number_manager` `classifiers` (else the built-in ones), a class given as a bare pattern written
 * as `{regex, friendly_name}`.
 */
export function availableClassifiers(core: Core): Record<string, Record<string, unknown>> {
  const configured = core.config.value<unknown>(NUMBER_MANAGER_CATEGORY, 'classifiers', DEFAULT_CLASSIFIERS);
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, c] of Object.entries(isObject(configured) ? configured : DEFAULT_CLASSIFIERS)) {
    if (typeof c === 'string') out[name] = { regex: c, friendly_name: name };
    else if (isObject(c)) out[name] = c;
  }
  return out;
}

/**
 * A number classified as `GET phone_numbers/classifiers/{number}` answers it: the number as asked,
 * its E.164 form (the system's converters), and the first class whose pattern matches that form
 * (its name and fields); without a class, the number and its E.164 form only.
 */
export function classifyNumber(core: Core, number: string): Record<string, unknown> {
  const e164 = normalizeSystemNumber(core, number);
  for (const [name, c] of Object.entries(availableClassifiers(core))) {
    const regex = typeof c.regex === 'string' ? c.regex : '^$';
    if (linearExec(regex, e164)) return { ...c, name, number, e164 };
  }
  return { number, e164 };
}
