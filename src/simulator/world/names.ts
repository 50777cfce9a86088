/**
 * Word lists the world draws from. The accented and apostrophe names exist to exercise every
 * layer's text handling (UTF-8 on the wire, in JSON, in Postgres), so they are deliberately
 * varied: combining-free accents, ø/å/ñ, and apostrophes in both first and last names.
 */

export const CLASS_NAMES = [
  'Late Models',
  'IMCA Modifieds',
  'USRA B-Mods',
  '360 Sprints - Winged',
  'Pure Stocks',
  'Mini Stocks',
  'Hobby Stocks',
  'Sport Compacts',
  'Street Stocks',
  'Modified Lites',
  'Micro Sprints',
  'Midgets',
] as const;

export const FIRST_NAMES = [
  'Mike', 'Jeff', 'Brian', 'Kyle', 'Tyler', 'Josh', 'Chris', 'Jason', 'Scott', 'Travis', 'Dustin',
  'Cody', 'Brandon', 'Justin', 'Ryan', 'Derek', 'Shane', 'Bobby', 'Dale', 'Tim', 'Kenny', 'Darrell',
  'Brent', 'Wade', 'Lance', 'Jimmy', 'Ricky', 'Tanner', 'Austin', 'Logan', 'Hunter', 'Colton', 'Zach',
  'Nick', 'Matt', 'Aaron', 'Kevin', 'Jesse', 'Cole', 'Brady', 'Garrett', 'Trent', 'Casey', 'Jake',
  'Amanda', 'Kelsey', 'Jessica', 'Ashley', 'Brittany', 'Megan', 'Sarah', 'Hailey', 'Tony', 'Steve',
  'Gary', 'Larry', 'Randy', 'Terry', 'Donnie', 'Rodney',
] as const;

export const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Miller', 'Davis', 'Wilson', 'Anderson', 'Taylor',
  'Thomas', 'Moore', 'Jackson', 'Martin', 'Lee', 'Thompson', 'White', 'Harris', 'Clark', 'Lewis',
  'Walker', 'Hall', 'Allen', 'Young', 'King', 'Wright', 'Scott', 'Green', 'Baker', 'Adams', 'Nelson',
  'Hill', 'Campbell', 'Mitchell', 'Roberts', 'Carter', 'Phillips', 'Evans', 'Turner', 'Parker',
  'Collins', 'Edwards', 'Stewart', 'Morris', 'Murphy', 'Cook', 'Rogers', 'Morgan', 'Cooper', 'Peterson',
  'Reed', 'Bailey', 'Kelly', 'Howard', 'Cox', 'Ward', 'Richardson', 'Watson', 'Brooks', 'Wood', 'James',
  'Bennett', 'Gray', 'Hughes', 'Price', 'Sanders', 'Myers', 'Long', 'Ross', 'Foster', 'Pierce',
  'Sheppard', 'McCreadie', 'Bloomquist', 'Madden', 'Erb', 'Overton', 'Marlar', 'Weiss', 'Dobmeier',
  'Hoffman', 'Schnell', 'Thornton', 'Lanigan', 'Kaeding', 'Babb', 'Brandt', 'Francis', 'Owens', 'Ferch',
] as const;

export const UNICODE_FIRST_NAMES = [
  'José', 'Seán', 'Zoë', "D'Andre", 'Renée', 'André', 'François', 'Björn', 'Søren', 'Jürgen', 'Noël',
  'Ramón', 'Inés', 'Chloé', 'Mátyás', "Ja'Marr", 'Éric', 'Zoé', 'Cécile', 'Răzvan',
] as const;

export const UNICODE_LAST_NAMES = [
  'Martínez', "O'Brien", 'Ångström', "O'Neil", "D'Amico", 'Muñoz', 'Peña', 'Müller', 'Côté', 'Bélanger',
  "O'Reilly", 'Lefèvre', 'Dubé', 'Nuñez', 'Gonçalves', 'Brontë', 'Søndergård', "D'Agostino", 'Šimek',
  'Østergaard',
] as const;

/** Suffixes with their share among drivers. */
export const SUFFIXES: readonly (readonly [string, number])[] = [
  ['Jr.', 0.05],
  ['Sr.', 0.015],
  ['II', 0.005],
  ['III', 0.01],
];

/** Home towns; the empty city exercises empty text, the Canadian ones a non-US country. */
export const PLACES: readonly (readonly [city: string, state: string, country: string])[] = [
  ['Boone', 'IA', 'USA'],
  ['Des Moines', 'IA', 'USA'],
  ['Mason City', 'IA', 'USA'],
  ['Knoxville', 'IA', 'USA'],
  ['Sioux Falls', 'SD', 'USA'],
  ['Fargo', 'ND', 'USA'],
  ['Mandan', 'ND', 'USA'],
  ['Brainerd', 'MN', 'USA'],
  ['Rochester', 'MN', 'USA'],
  ['Lincoln', 'NE', 'USA'],
  ['Kearney', 'NE', 'USA'],
  ['Salina', 'KS', 'USA'],
  ['Wichita', 'KS', 'USA'],
  ['Joplin', 'MO', 'USA'],
  ['Springfield', 'MO', 'USA'],
  ['Peoria', 'IL', 'USA'],
  ['Rockford', 'IL', 'USA'],
  ['Beaver Dam', 'WI', 'USA'],
  ['Eau Claire', 'WI', 'USA'],
  ['Batesville', 'AR', 'USA'],
  ['El Paso', 'TX', 'USA'],
  ['Las Cruces', 'NM', 'USA'],
  ['Winnipeg', 'MB', 'Canada'],
  ['Saskatoon', 'SK', 'Canada'],
  ['', 'IA', 'USA'],
  ['Cedar Rapids', 'IA', ''],
];

/** Promotion names for weekly race nights. */
export const PROMO_NIGHTS = [
  'Weekly Racing',
  'Kids Night',
  'Fan Appreciation Night',
  'Military Appreciation Night',
  'Back to School Bash',
  'Hometown Heroes Night',
  'Fireworks Night',
  'Dollar Dog Night',
  'Autograph Night',
  'Championship Night',
] as const;

export const EVENT_DESCRIPTIONS = [
  'Pit gates open at 4:00 PM, hot laps at 6:30 PM.',
  'Rain date the following night.',
  'Grandstands open at 5:00 PM; kids 12 and under free.',
  'Double points for the weekly series.',
] as const;

/** Specials, in the order scales add them; generate/calendar.ts places each on its date. */
export const SPECIALS = [
  'Season Opener',
  'Firecracker 40',
  'Fall Nationals',
  'Labor Day Classic',
  'Spring Thaw',
  'Harvest 100',
  'Midsummer Madness',
] as const;

export const PURSES = ['$1,000', '$2,500', '$5,000', '$10,000'] as const;
