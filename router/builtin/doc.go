// Package builtin holds routebench's embedded models: an embedder, a judge
// and params extraction that need no network and no downloaded weights.
// Everything they know they learn from the registry's own text, so a
// prompt version's wording is what they route by: reword a description and
// routing changes.
//
// # Features
//
// Text is lowercased and split into Latin words, numbers and Han runs.
// Features are Latin words, adjacent-word bigrams and skip-bigrams,
// character 3-5-grams of Latin words (so "replicas" meets "replica"), Han
// characters and Han bigrams (Chinese has no spaces), numbers of up to
// three digits and the shape (digit count) of every number. Param values
// are one feature each, since they say nothing about intent and their
// parts would mislead: ids ("TCK-300871" -> "tck-#6"), glued names
// ("order-service", "zhang.wei", so "search-api" is not a search) and date
// expressions ("上周", "last 7 days", "2026-11-03" -> "a date"). Features are hashed with FNV-1a
// (64 bit) and weighted by sublinear term frequency times a smoothed IDF
// over skills (a word every skill uses says nothing about which skill is
// meant), raised to the power 0.5.
//
// # Embedder
//
// NewEmbedder hashes weighted features into EmbedDim (512) signed buckets
// and L2-normalizes, as chromem-go requires. Same registry, same text: same
// vector on any machine (logarithms are computed with explicitly rounded
// basic operations, so neither assembly nor FMA fusion can change a bit).
//
// # Judge
//
// For each candidate skill the judge measures, against the registry's
// texts, the request's cosine to the skill's centroid, to its nearest and
// two nearest positive texts (name, description sentences, when_to_use,
// examples, glossary, enum values and synonyms), to other skills'
// when_not_to_use lines that name it ("(use query_alerts_by_zone)" pulls
// toward query_alerts_by_zone), and how much closer it is to the skill's
// own when_not_to_use and counter_examples than to its positives (a
// penalty). A fixed weighting of this evidence is the skill's fit. A
// softmax regression over the candidates adds learned per-feature,
// per-skill corrections on top of the fit (trained by seeded SGD on every
// registry text, each routed against the registry without itself;
// counter-examples train "not this skill"), so words that separate
// confusable skills gain weight. Epochs shrink as the registry grows (16
// for a demo registry, 8 for 15,000 examples) and features seen in one
// text only get no weights, which keeps fitting a 150-skill registry with
// 100 examples each at a few seconds.
//
// # Calibration
//
// The confidence is not a cosine: it estimates the probability that the
// chosen skill is the right one, as the product of two fitted logistic
// models (see calibrate.go),
//
//	confidence = P(in scope) * P(right | in scope)
//
// P(right | in scope) reads the candidate's logit margin over the best
// other candidate, its softmax probability among the candidates and its
// similarity fit. It is fitted by maximum a posteriori logistic
// regression (Newton's method) on held-out routing of the registry itself:
// every example (weight 1) and when_to_use line (weight 1/2) is routed
// among its top-K skills by fit (K = the version's top_k), with
// similarity evidence computed leave-one-out and the linear layer
// cross-fitted over 5 folds (3 above 2,000 texts), so no decision used a
// model that saw its text; each is labelled right or wrong. A lone
// candidate is right whenever the request is in scope.
//
// P(in scope) reads how well the request fits the candidate whatever the
// other candidates: the fit, the cosine to its nearest text, the linear
// layer's learned vote, and three coverages of the request: the share of
// the skill name's words it says, the share of the skill's required
// params it gives values for, and the share of its own plain words that
// the skill's texts and params schema use. It is fitted on the same
// held-out texts against pseudo out-of-scope requests: each text routed
// again with its own skill taken out of the registry, so whatever wins is
// wrong. The two groups weigh the same in the fit; the intercept then
// moves to an assumed out-of-scope share of 0.6% (chosen on CLINC150's val
// split). The judge answers "none" when the request is more likely out
// of scope than in (P(in scope) < 0.5), with confidence 1 - P(in scope);
// doubt between two in-scope candidates is left to the bands, which ask.
//
// Both models start from a prior worth four decisions, which a registry
// without examples keeps. For P(right | in scope) it is "a logit of margin
// is a logit of confidence, discounted when the fit is weak"; for
// P(in scope) it was measured on BFCL's development categories (bare tool
// schemas: simple_python against irrelevance, equally weighted, the
// intercept set to keep 98% of simple_python in scope): a request that
// gives the tool's required values and talks about what its schema talks
// about, or says half its name's words, is in scope.
//
// Function words ("the", "of", "what", "find") carry grammar, not a
// skill's subject. IDF cannot lower them in a registry of one or two
// tools, where every word is in every skill, so the model assumes ten
// imaginary skills that use every function word (and half weight for them
// below 50 skills, full weight from there): in a 150-skill registry the
// words' own spread decides.
//
// On CLINC150's dev split (train texts as examples of 150 skills; val
// queries recalled top-10 by the builtin embedder, then judged; measured
// by TestCLINC with ROUTEBENCH_CLINC=1), see the README's measurements.
//
// # Params
//
// ExtractParams reads a skill's params schema and fills only what the text
// states, each phrase used once, surest evidence first: values written as
// name=value or name: value; pattern matches (ids, paths); dates
// (absolute and relative, per the team's relative-date semantics, in the
// request's time zone) written as the property's description asks
// ("YYYY-MM-DD", "MM/DD/YYYY", "(day-month-year)", an example date),
// times of day ("hh:mm AM/PM", 24-hour otherwise), date-times; enum
// values and x-synonyms (longest match first); numbers; strings; flags;
// nested objects and arrays of objects. Nothing is guessed, with one
// exception below for bare tool schemas: a missing date range stays
// missing so the router asks.
//
// Numbers may be negative ("b=-3"), carry a unit ("300K", "4 m/s^2", "$20",
// "12%"), a magnitude ("2 million"), an exponent ("4e-6") or be written as
// words ("three"). Each (property, number) pair is scored by how close
// every part of the property's name is (a comma or "and" in between
// counts as distance), a quarter of the closest specific description
// word, and the unit: one that measures what the property measures (its
// name or description says "velocity", "in Kelvin", "amount") ties the
// number to it, one of another kind rules it out; pairs are taken best
// first. A percentage goes to a rate as a fraction (5% is 0.05) unless the
// description asks for a percentage. A written list of property names
// followed by a list of as many numbers pairs them in order. Required
// numeric properties the text does not name get the remaining numbers in
// order only when the counts agree. A property that counts periods per
// year (compounding, a frequency) takes "quarterly" as 4, "monthly" as 12;
// one that counts days, weeks, months or years takes "the next week" or
// "the past decade" in its unit; an ordinal right before a property's
// word is its number ("the 12th century", "the 1st, 5th and 12th
// levels"). A stay's end date is its one date plus the nights it lasts.
// A number written as a word needs the property's own name nearby, and a
// sentence's end parts a number from the next sentence's words.
//
// Names of places, people, organisations and titles (the property's kind
// comes from its name's and description's words: city, author, company,
// title, or a bare "name") are capitalised or quoted phrases, tied to a
// property by the evidence before them: the property's own word ("the
// team Westfield Rovers"), a name that holds it ("Hotel Lumen"), a role
// cue ("directed by", "starring", "by"), a journey's from/to, or a
// preposition that suits the kind ("in" for a place, "for" for a party).
// A place is written with its region as code when the description's
// example uses codes ("Boise, Idaho" -> "Boise, ID"). Indexed properties
// (team1, team2) take a written pair in order. Lowercase words are never
// taken as names; letters of any cased script are ("São Tomé", "Łódź"),
// and a Latin name written right after Chinese is one. The two ends of a
// conversion (from_currency and to_currency, source_language and
// target_language) come from "from A to B" or "N A to B" ("300 yen to
// euros"); a currency is written as its ISO code. A place format that asks
// for "City, ST" or "City, Country" is completed for well-known cities
// (gazetteer.go says which). Properties named for an id, a web address,
// a unit, a month or a weekday take values of that shape. Arrays of enum
// values take every value the text says; values a description lists as
// examples ("e.g. Oak, Ash", "like Sourdough", "(walk, cycle)") count as
// its own values; a bracketed list is one value.
//
// For a bare tool schema (no examples; a registry written for routing
// states its values by example instead), plain words beside a string
// property's own word fill it ("the color is teal", "a loafer style";
// an optional property only after a connector), as do a list's words after
// its own word ("columns: price, stock and rating"), and the values a
// description quotes when the text says them or a word of their stem.
// Booleans are set only when the text names them. The one guess: when
// exactly one required plain string is still missing and the request has
// exactly one run of words the tool's own texts do not use, introduced as
// a value is (after an article or preposition, or a capitalised name not
// opening the sentence), that run fills it ("the function of lactase":
// "lactase"); modifiers ("cheapest", "recommended") are dropped from its
// front and a possessive ends it.
package builtin
