DROP TABLE dead_letters;
DROP TABLE inbox;
DROP TABLE outbox_events;
DROP TABLE timezones;
DROP TABLE languages;
DROP TABLE currencies;
DROP TABLE countries;
