/** The Ntais (2006) Greek stemmer as python_greek_stemmer 0.1.1's `GreekStemmer.stem` (the paper's), quirks included. */

import { memo } from "./normalize";

/** A set of endings, probed at each of their lengths, longest first. */
class EndingSet {
  private readonly set: ReadonlySet<string>;
  private readonly lengths: readonly number[];

  constructor(endings: readonly string[]) {
    this.set = new Set(endings);
    this.lengths = [...new Set(endings.map((e) => e.length))].sort((a, b) => b - a);
  }

  /** Length of the longest ending that leaves a non-empty stem, or 0: what the lazy `^(.+?)(A|B|…)$` selects. */
  longestStrippable(word: string): number {
    return this.lengths.find((n) => n < word.length && this.set.has(word.slice(word.length - n))) ?? 0;
  }

  /** Whether `word` ends with (or equals) one of the endings: the reference's `(A|B|…)$`. */
  endsAny(word: string): boolean {
    return this.lengths.some((n) => n <= word.length && this.set.has(word.slice(word.length - n)));
  }

  /** Whole-string membership: the reference's `^(A|B|…)$`. */
  has(word: string): boolean {
    return this.set.has(word);
  }
}

const endings = (list: string): EndingSet => new EndingSet(list.split("|"));

// Letter classes: Python compiled these with re.IGNORECASE, which also admits lower case and code points whose
// case mapping lands in the Greek block (µ, ϐ, ϑ, Ω-ohm, …); listed so an unfolded caller gets the same answer.

const CASE_INSENSITIVE_EXTRAS = [0x00b5, 0x0345, 0x03d0, 0x03d1, 0x03d5, 0x03d6, 0x03f0, 0x03f1, 0x03f4, 0x03f5, 0x1fbe, 0x2126];
const GREEK_EXTRAS: ReadonlySet<number> = new Set(CASE_INSENSITIVE_EXTRAS);

/** ΑΕΗΙΟΩ in either case, plus the code points Python's case folding maps onto them. */
const VOWELS_NO_Y: ReadonlySet<number> = new Set([
  ..."ΑΕΗΙΟΩαεηιοω".split("").map((c) => c.charCodeAt(0)),
  0x0345, 0x03f5, 0x1fbe, 0x2126,
]);
/** As above plus Υ/υ. */
const VOWELS: ReadonlySet<number> = new Set([...VOWELS_NO_Y, 0x03a5, 0x03c5]);

function isGreekCode(c: number): boolean {
  // Ranges Α..Ω and α..ω as in the reference (they include the unassigned U+03A2 and final ς).
  return (c >= 0x0391 && c <= 0x03a9) || (c >= 0x03b1 && c <= 0x03c9) || GREEK_EXTRAS.has(c);
}

function isGreekWord(word: string): boolean {
  if (word.length === 0) return false;
  for (let i = 0; i < word.length; i++) if (!isGreekCode(word.charCodeAt(i))) return false;
  return true;
}

const endsOnVowel = (s: string): boolean => s.length > 0 && VOWELS.has(s.charCodeAt(s.length - 1));
const endsOnVowelNoY = (s: string): boolean => s.length > 0 && VOWELS_NO_Y.has(s.charCodeAt(s.length - 1));

/** Irregular nouns rewritten before any other step (ending -> replacement). */
const STEP1_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ["ΦΑΓΙΑ", "ΦΑ"], ["ΦΑΓΙΟΥ", "ΦΑ"], ["ΦΑΓΙΩΝ", "ΦΑ"],
  ["ΣΚΑΓΙΑ", "ΣΚΑ"], ["ΣΚΑΓΙΟΥ", "ΣΚΑ"], ["ΣΚΑΓΙΩΝ", "ΣΚΑ"],
  ["ΣΟΓΙΟΥ", "ΣΟ"], ["ΣΟΓΙΑ", "ΣΟ"], ["ΣΟΓΙΩΝ", "ΣΟ"],
  ["ΤΑΤΟΓΙΑ", "ΤΑΤΟ"], ["ΤΑΤΟΓΙΟΥ", "ΤΑΤΟ"], ["ΤΑΤΟΓΙΩΝ", "ΤΑΤΟ"],
  ["ΚΡΕΑΣ", "ΚΡΕ"], ["ΚΡΕΑΤΟΣ", "ΚΡΕ"], ["ΚΡΕΑΤΑ", "ΚΡΕ"], ["ΚΡΕΑΤΩΝ", "ΚΡΕ"],
  ["ΠΕΡΑΣ", "ΠΕΡ"], ["ΠΕΡΑΤΟΣ", "ΠΕΡ"], ["ΠΕΡΑΤΑ", "ΠΕΡ"], ["ΠΕΡΑΤΩΝ", "ΠΕΡ"],
  ["ΤΕΡΑΣ", "ΤΕΡ"], ["ΤΕΡΑΤΟΣ", "ΤΕΡ"], ["ΤΕΡΑΤΑ", "ΤΕΡ"], ["ΤΕΡΑΤΩΝ", "ΤΕΡ"],
  ["ΦΩΣ", "ΦΩ"], ["ΦΩΤΟΣ", "ΦΩ"], ["ΦΩΤΑ", "ΦΩ"], ["ΦΩΤΩΝ", "ΦΩ"],
  ["ΚΑΘΕΣΤΩΣ", "ΚΑΘΕΣΤ"], ["ΚΑΘΕΣΤΩΤΟΣ", "ΚΑΘΕΣΤ"], ["ΚΑΘΕΣΤΩΤΑ", "ΚΑΘΕΣΤ"], ["ΚΑΘΕΣΤΩΤΩΝ", "ΚΑΘΕΣΤ"],
  ["ΓΕΓΟΝΟΣ", "ΓΕΓΟΝ"], ["ΓΕΓΟΝΟΤΟΣ", "ΓΕΓΟΝ"], ["ΓΕΓΟΝΟΤΑ", "ΓΕΓΟΝ"], ["ΓΕΓΟΝΟΤΩΝ", "ΓΕΓΟΝ"],
]);
const STEP1_LENGTHS: readonly number[] = [...new Set([...STEP1_EXCEPTIONS.keys()].map((k) => k.length))].sort((a, b) => a - b);

/** Function words the reference never stems; 0.1.1 lacks some forks' acronym block (the oracles stem ΟΤΑ -> ΟΤ). */
const PROTECTED_WORDS: ReadonlySet<string> = new Set(
  (
    "ΑΚΡΙΒΩΣ ΑΛΑ ΑΛΛΑ ΑΛΛΙΩΣ ΑΛΛΟΤΕ ΑΜΑ ΑΝΩ ΑΝΑ ΑΝΑΜΕΣΑ ΑΝΑΜΕΤΑΞΥ ΑΝΕΥ ΑΝΤΙ ΑΝΤΙΠΕΡΑ ΑΝΤΙΟ " +
    "ΑΞΑΦΝΑ ΑΠΟ ΑΠΟΨΕ ΑΡΑ ΑΡΑΓΕ ΑΥΡΙΟ ΑΦΟΙ ΑΦΟΥ ΑΦΟΤΟΥ ΒΡΕ ΓΕΙΑ ΓΙΑ ΓΙΑΤΙ ΓΡΑΜΜΑ ΔΕΗ ΔΕΝ " +
    "ΔΗΛΑΔΗ ΔΙΧΩΣ ΔΥΟ ΕΑΝ ΕΓΩ ΕΔΩ ΕΔΑ ΕΙΘΕ ΕΙΜΑΙ ΕΙΜΑΣΤΕ ΕΙΣΑΙ ΕΙΣΑΣΤΕ ΕΙΝΑΙ ΕΙΣΤΕ ΕΙΤΕ ΕΚΕΙ " +
    "ΕΚΟ ΕΛΑ ΕΜΑΣ ΕΜΕΙΣ ΕΝΤΕΛΩΣ ΕΝΤΟΣ ΕΝΤΩΜΕΤΑΞΥ ΕΝΩ ΕΞΙ ΕΞΙΣΟΥ ΕΞΗΣ ΕΞΩ ΕΟΚ ΕΠΑΝΩ ΕΠΕΙΔΗ " +
    "ΕΠΕΙΤΑ ΕΠΙ ΕΠΙΣΗΣ ΕΠΟΜΕΝΩΣ ΕΠΤΑ ΕΣΑΣ ΕΣΕΙΣ ΕΣΤΩ ΕΣΥ ΕΣΩ ΕΤΣΙ ΕΥΓΕ ΕΦΕ ΕΦΕΞΗΣ ΕΧΤΕΣ ΕΩΣ " +
    "ΗΔΗ ΗΜΙ ΗΠΑ ΗΤΟΙ ΘΕΣ ΙΔΙΩΣ ΙΔΗ ΙΚΑ ΙΣΩΣ ΚΑΘΕ ΚΑΘΕΤΙ ΚΑΘΟΛΟΥ ΚΑΘΩΣ ΚΑΙ ΚΑΝ ΚΑΠΟΤΕ ΚΑΠΟΥ " +
    "ΚΑΤΑ ΚΑΤΙ ΚΑΤΟΠΙΝ ΚΑΤΩ ΚΕΙ ΚΙΧ ΚΚΕ ΚΟΛΑΝ ΚΥΡΙΩΣ ΚΩΣ ΜΑΚΑΡΙ ΜΑΛΙΣΤΑ ΜΑΛΛΟΝ ΜΑΙ ΜΑΟ ΜΑΟΥΣ " +
    "ΜΑΣ ΜΕΘΑΥΡΙΟ ΜΕΣ ΜΕΣΑ ΜΕΤΑ ΜΕΤΑΞΥ ΜΕΧΡΙ ΜΗΔΕ ΜΗΝ ΜΗΠΩΣ ΜΗΤΕ ΜΙΑ ΜΙΑΣ ΜΙΣ ΜΜΕ ΜΟΛΟΝΟΤΙ " +
    "ΜΟΥ ΜΠΑ ΜΠΑΣ ΜΠΟΥΦΑΝ ΜΠΡΟΣ ΝΑΙ ΝΕΣ ΝΤΑ ΝΤΕ ΞΑΝΑ ΟΗΕ ΟΚΤΩ ΟΜΩΣ ΟΝΕ ΟΠΑ ΟΠΟΥ ΟΠΩΣ ΟΣΟ " +
    "ΟΤΑΝ ΟΤΕ ΟΤΙ ΟΥΤΕ ΟΧΙ ΠΑΛΙ ΠΑΝ ΠΑΝΟ ΠΑΝΤΟΤΕ ΠΑΝΤΟΥ ΠΑΝΤΩΣ ΠΑΝΩ ΠΑΡΑ ΠΕΡΑ ΠΕΡΙ ΠΕΡΙΠΟΥ " +
    "ΠΙΑ ΠΙΟ ΠΙΣΩ ΠΛΑΙ ΠΛΕΟΝ ΠΛΗΝ ΠΟΤΕ ΠΟΥ ΠΡΟ ΠΡΟΣ ΠΡΟΧΤΕΣ ΠΡΟΧΘΕΣ ΡΟΔΙ ΠΩΣ ΣΑΙ ΣΑΣ ΣΑΝ " +
    "ΣΕΙΣ ΣΙΑ ΣΚΙ ΣΟΙ ΣΟΥ ΣΡΙ ΣΥΝ ΣΥΝΑΜΑ ΣΧΕΔΟΝ ΤΑΔΕ ΤΑΞΙ ΤΑΧΑ ΤΕΙ ΤΗΝ ΤΗΣ ΤΙΠΟΤΑ ΤΙΠΟΤΕ " +
    "ΤΙΣ ΤΟΝ ΤΟΤΕ ΤΟΥ ΤΟΥΣ ΤΣΑ ΤΣΕ ΤΣΙ ΤΣΟΥ ΤΩΝ ΥΠΟ ΥΠΟΨΗ ΥΠΟΨΙΝ ΥΣΤΕΡΑ ΦΕΤΟΣ ΦΙΣ ΦΠΑ ΧΑΦ " +
    "ΧΘΕΣ ΧΤΕΣ ΧΩΡΙΣ ΩΣ ΩΣΑΝ ΩΣΟΤΟΥ ΩΣΠΟΥ ΩΣΤΕ ΩΣΤΟΣΟ"
  ).split(" "),
);

/** Strip the longest listed ending (keeping a letter); `restore(stem)` glues back what Ntais lists as root. */
type Step = { endings: EndingSet; restore?: (stem: string) => string };

const when = (cond: boolean, text: string): string => (cond ? text : "");

// `*_EXACT` sets match the whole stem, `*_TAIL` sets its end: which reference patterns were anchored at the start.

const S2A_TAIL = endings("ΟΚ|ΜΑΜ|ΜΑΝ|ΜΠΑΜΠ|ΠΑΤΕΡ|ΓΙΑΓΙ|ΝΤΑΝΤ|ΚΥΡ|ΘΕΙ|ΠΕΘΕΡ|ΜΟΥΣΑΜ|ΚΑΠΛΑΜ|ΠΑΡ|ΨΑΡ|ΤΖΟΥΡ|ΤΑΜΠΟΥΡ");
const S2B_TAIL = endings("ΟΠ|ΙΠ|ΕΜΠ|ΥΠ|ΓΗΠ|ΔΑΠ|ΚΡΑΣΠ|ΜΙΛ");
const S2C_TAIL = endings("ΑΡΚ|ΚΑΛΙΑΚ|ΠΕΤΑΛ|ΛΙΧ|ΠΛΕΞ|ΣΚ|Σ|ΦΛ|ΦΡ|ΒΕΛ|ΛΟΥΛ|ΧΝ|ΣΠ|ΤΡΑΓ|ΦΕ");
const S2D_EXACT = endings("Θ|Δ|ΕΛ|ΓΑΛ|Ν|Π|ΙΔ|ΠΑΡ|ΣΤΕΡ|ΟΡΦ|ΑΝΔΡ|ΑΝΤΡ");
const S3_EXACT = endings(
  "ΑΓ|ΑΓΓΕΛ|ΑΓΡ|ΑΕΡ|ΑΘΛ|ΑΚΟΥΣ|ΑΞ|ΑΣ|Β|ΒΙΒΛ|ΒΥΤ|Γ|ΓΙΑΓ|ΓΩΝ|Δ|ΔΑΝ|ΔΗΛ|ΔΗΜ|ΔΟΚΙΜ|ΕΛ|ΖΑΧΑΡ|ΗΛ|ΗΠ|" +
    "ΙΔ|ΙΣΚ|ΙΣΤ|ΙΟΝ|ΙΩΝ|ΚΙΜΩΛ|ΚΟΛΟΝ|ΚΟΡ|ΚΤΗΡ|ΚΥΡ|ΛΑΓ|ΛΟΓ|ΜΑΓ|ΜΠΑΝ|ΜΠΡ|ΝΑΥΤ|ΝΟΤ|ΟΠΑΛ|ΟΞ|ΟΡ|ΟΣ|" +
    "ΠΑΝΑΓ|ΠΑΤΡ|ΠΗΛ|ΠΗΝ|ΠΛΑΙΣ|ΠΟΝΤ|ΡΑΔ|ΡΟΔ|ΣΚ|ΣΚΟΡΠ|ΣΟΥΝ|ΣΠΑΝ|ΣΤΑΔ|ΣΥΡ|ΤΗΛ|ΤΙΜ|ΤΟΚ|ΤΟΠ|ΤΡΟΧ|" +
    "ΦΙΛ|ΦΩΤ|Χ|ΧΙΛ|ΧΡΩΜ|ΧΩΡ",
);
const S4_EXACT = endings(
  "ΑΔ|ΑΛ|ΑΜΑΝ|ΑΜΕΡ|ΑΜΜΟΧΑΛ|ΑΝΗΘ|ΑΝΤΙΔ|ΑΠΛ|ΑΤΤ|ΑΦΡ|ΒΑΣ|ΒΡΩΜ|ΓΕΝ|ΓΕΡ|Δ|ΔΥΤ|ΕΙΔ|ΕΝΔ|ΕΞΩΔ|ΗΘ|ΘΕΤ|" +
    "ΚΑΛΛΙΝ|ΚΑΛΠ|ΚΑΤΑΔ|ΚΡ|ΚΩΔ|ΛΟΓ|Μ|ΜΕΡ|ΜΟΝΑΔ|ΜΟΥΛ|ΜΟΥΣ|ΜΠΑΓΙΑΤ|ΜΠΑΝ|ΜΠΟΛ|ΜΠΟΣ|ΜΥΣΤ|Ν|ΝΙΤ|ΞΙΚ|" +
    "ΟΠΤ|ΠΑΝ|ΠΕΤΣ|ΠΙΚΑΝΤ|ΠΙΤΣ|ΠΛΑΣΤ|ΠΛΙΑΤΣ|ΠΟΝΤ|ΠΟΣΤΕΛΝ|ΠΡΩΤΟΔ|ΣΕΡΤ|ΣΗΜΑΝΤ|ΣΤΑΤ|ΣΥΝΑΔ|" +
    "ΣΥΝΟΜΗΛ|ΤΕΛ|ΤΕΧΝ|ΤΡΟΠ|ΤΣΑΜ|ΥΠΟΔ|Φ|ΦΙΛΟΝ|ΦΥΛΟΔ|ΦΥΣ|ΧΑΣ",
);
const S4_TAIL = endings("ΦΟΙΝ");
const S5A_EXACT = endings("ΑΝΑΠ|ΑΠΟΘ|ΑΠΟΚ|ΑΠΟΣΤ|ΒΟΥΒ|ΞΕΘ|ΟΥΛ|ΠΕΘ|ΠΙΚΡ|ΠΟΤ|ΣΙΧ|Χ");
const S5B_FIRST_EXACT = endings("ΤΡ|ΤΣ");
const S5B_EXACT = endings(
  "ΒΕΤΕΡ|ΒΟΥΛΚ|ΒΡΑΧΜ|Γ|ΔΡΑΔΟΥΜ|Θ|ΚΑΛΠΟΥΖ|ΚΑΣΤΕΛ|ΚΟΡΜΟΡ|ΛΑΟΠΛ|ΜΩΑΜΕΘ|Μ|ΜΟΥΣΟΥΛΜ|Ν|ΟΥΛ|Π|ΠΕΛΕΚ|" +
    "ΠΛ|ΠΟΛΙΣ|ΠΟΡΤΟΛ|ΣΑΡΑΚΑΤΣ|ΣΟΥΛΤ|ΤΣΑΡΛΑΤ|ΟΡΦ|ΤΣΙΓΓ|ΤΣΟΠ|ΦΩΤΟΣΤΕΦ|Χ|ΨΥΧΟΠΛ|ΑΓ|ΓΑΛ|ΓΕΡ|ΔΕΚ|" +
    "ΔΙΠΛ|ΑΜΕΡΙΚΑΝ|ΟΥΡ|ΠΙΘ|ΠΟΥΡΙΤ|Σ|ΖΩΝΤ|ΙΚ|ΚΑΣΤ|ΚΟΠ|ΛΙΧ|ΛΟΥΘΗΡ|ΜΑΙΝΤ|ΜΕΛ|ΣΙΓ|ΣΠ|ΣΤΕΓ|ΤΡΑΓ|" +
    "ΤΣΑΓ|Φ|ΕΡ|ΑΔΑΠ|ΑΘΙΓΓ|ΑΜΗΧ|ΑΝΙΚ|ΑΝΟΡΓ|ΑΠΗΓ|ΑΠΙΘ|ΑΤΣΙΓΓ|ΒΑΣ|ΒΑΣΚ|ΒΑΘΥΓΑΛ|ΒΙΟΜΗΧ|ΒΡΑΧΥΚ|" +
    "ΔΙΑΤ|ΔΙΑΦ|ΕΝΟΡΓ|ΘΥΣ|ΚΑΠΝΟΒΙΟΜΗΧ|ΚΑΤΑΓΑΛ|ΚΛΙΒ|ΚΟΙΛΑΡΦ|ΛΙΒ|ΜΕΓΛΟΒΙΟΜΗΧ|ΜΙΚΡΟΒΙΟΜΗΧ|ΝΤΑΒ|" +
    "ΞΗΡΟΚΛΙΒ|ΟΛΙΓΟΔΑΜ|ΟΛΟΓΑΛ|ΠΕΝΤΑΡΦ|ΠΕΡΗΦ|ΠΕΡΙΤΡ|ΠΛΑΤ|ΠΟΛΥΔΑΠ|ΠΟΛΥΜΗΧ|ΣΤΕΦ|ΤΑΒ|ΤΕΤ|ΥΠΕΡΗΦ|" +
    "ΥΠΟΚΟΠ|ΧΑΜΗΛΟΔΑΠ|ΨΗΛΟΤΑΒ",
);
const S5C_TAIL = endings(
  "ΟΔ|ΑΙΡ|ΦΟΡ|ΤΑΘ|ΔΙΑΘ|ΣΧ|ΕΝΔ|ΕΥΡ|ΤΙΘ|ΥΠΕΡΘ|ΡΑΘ|ΕΝΘ|ΡΟΘ|ΣΘ|ΠΥΡ|ΑΙΝ|ΣΥΝΔ|ΣΥΝ|ΣΥΝΘ|ΧΩΡ|ΠΟΝ|ΒΡ|" +
    "ΚΑΘ|ΕΥΘ|ΕΚΘ|ΝΕΤ|ΡΟΝ|ΑΡΚ|ΒΑΡ|ΒΟΛ|ΩΦΕΛ",
);
const S5C_EXACT = endings(
  "ΑΒΑΡ|ΒΕΝ|ΕΝΑΡ|ΑΒΡ|ΑΔ|ΑΘ|ΑΝ|ΑΠΛ|ΒΑΡΟΝ|ΝΤΡ|ΣΚ|ΚΟΠ|ΜΠΟΡ|ΝΙΦ|ΠΑΓ|ΠΑΡΑΚΑΛ|ΣΕΡΠ|ΣΚΕΛ|ΣΥΡΦ|ΤΟΚ|Υ|Δ|" +
    "ΕΜ|ΘΑΡΡ|Θ",
);
const S5F_FIRST_EXACT = endings("Π|ΑΠ|ΣΥΜΠ|ΑΣΥΜΠ|ΑΚΑΤΑΠ|ΑΜΕΤΑΜΦ");
const S5F_EXACT = endings("ΑΛ|ΑΡ|ΕΚΤΕΛ|Ζ|Μ|Ξ|ΠΑΡΑΚΑΛ|ΠΡΟ|ΝΙΣ");
const S5G_TAIL = endings("ΣΚΩΛ|ΣΚΟΥΛ|ΝΑΡΘ|ΣΦ|ΟΘ|ΠΙΘ");
const S5G_EXACT = endings("ΔΙΑΘ|Θ|ΠΑΡΑΚΑΤΑΘ|ΠΡΟΣΘ|ΣΥΝΘ");
const S5H_EXACT = endings(
  "ΦΑΡΜΑΚ|ΧΑΔ|ΑΓΚ|ΑΝΑΡΡ|ΒΡΟΜ|ΕΚΛΙΠ|ΛΑΜΠΙΔ|ΛΕΧ|Μ|ΠΑΤ|Ρ|Λ|ΜΕΔ|ΜΕΣΑΖ|ΥΠΟΤΕΙΝ|ΑΜ|ΑΙΘ|ΑΝΗΚ|ΔΕΣΠΟΖ|" +
    "ΕΝΔΙΑΦΕΡ|ΔΕ|ΔΕΥΤΕΡΕΥ|ΚΑΘΑΡΕΥ|ΠΛΕ|ΤΣΑ",
);
const S5H_TAIL = endings("ΠΟΔΑΡ|ΒΛΕΠ|ΠΑΝΤΑΧ|ΦΡΥΔ|ΜΑΝΤΙΛ|ΜΑΛΛ|ΚΥΜΑΤ|ΛΑΧ|ΛΗΓ|ΦΑΓ|ΟΜ|ΠΡΩΤ");
const S5I_EXACT = endings(
  "ΑΒΑΣΤ|ΠΟΛΥΦ|ΑΔΗΦ|ΠΑΜΦ|Ρ|ΑΣΠ|ΑΦ|ΑΜΑΛ|ΑΜΑΛΛΙ|ΑΝΥΣΤ|ΑΠΕΡ|ΑΣΠΑΡ|ΑΧΑΡ|ΔΕΡΒΕΝ|ΔΡΟΣΟΠ|ΞΕΦ|ΝΕΟΠ|" +
    "ΝΟΜΟΤ|ΟΛΟΠ|ΟΜΟΤ|ΠΡΟΣΤ|ΠΡΟΣΩΠΟΠ|ΣΥΜΠ|ΣΥΝΤ|Τ|ΥΠΟΤ|ΧΑΡ|ΑΕΙΠ|ΑΙΜΟΣΤ|ΑΝΥΠ|ΑΠΟΤ|ΑΡΤΙΠ|ΔΙΑΤ|ΕΝ|" +
    "ΕΠΙΤ|ΚΡΟΚΑΛΟΠ|ΣΙΔΗΡΟΠ|Λ|ΝΑΥ|ΟΥΛΑΜ|ΟΥΡ|Π|ΤΡ|Μ",
);
const S5I_TAIL = endings("ΟΦ|ΠΕΛ|ΧΟΡΤ|ΛΛ|ΣΦ|ΡΠ|ΦΡ|ΠΡ|ΛΟΧ|ΣΜΗΝ");
const S5I_NOT_EXACT = endings("ΨΟΦ|ΝΑΥΛΟΧ");
const S5I_NOT_TAIL = endings("ΚΟΛΛ");
const S5J_EXACT = endings("Ν|ΧΕΡΣΟΝ|ΔΩΔΕΚΑΝ|ΕΡΗΜΟΝ|ΜΕΓΑΛΟΝ|ΕΠΤΑΝ|Ι");
const S5K_EXACT = endings("ΑΣΒ|ΣΒ|ΑΧΡ|ΧΡ|ΑΠΛ|ΑΕΙΜΝ|ΔΥΣΧΡ|ΕΥΧΡ|ΚΟΙΝΟΧΡ|ΠΑΛΙΜΨ");
const S5L_EXACT = endings("Ν|Ρ|ΣΠΙ|ΣΤΡΑΒΟΜΟΥΤΣ|ΚΑΚΟΜΟΥΤΣ|ΕΞΩΝ");
const S5M_EXACT = endings("ΠΑΡΑΣΟΥΣ|Φ|Χ|ΩΡΙΟΠΛ|ΑΖ|ΑΛΛΟΣΟΥΣ|ΑΣΟΥΣ");

/** Steps 2a–4 of the reference, in its order. */
const STEPS_2_TO_4: readonly Step[] = [
  // 2a: plural -ΑΔΕΣ/-ΑΔΩΝ keeps its Δ except after the listed kinship/loan stems.
  { endings: endings("ΑΔΕΣ|ΑΔΩΝ"), restore: (s) => when(!S2A_TAIL.endsAny(s), "ΑΔ") },
  { endings: endings("ΕΔΕΣ|ΕΔΩΝ"), restore: (s) => when(S2B_TAIL.endsAny(s), "ΕΔ") },
  { endings: endings("ΟΥΔΕΣ|ΟΥΔΩΝ"), restore: (s) => when(S2C_TAIL.endsAny(s), "ΟΥΔ") },
  { endings: endings("ΕΩΣ|ΕΩΝ|ΕΑΣ|ΕΑ"), restore: (s) => when(S2D_EXACT.has(s), "Ε") },
  {
    // 3: ΠΑΛ is rebuilt as ΠΑΛΑΙ (the reference's one-word special case; see the length test below).
    endings: endings("ΙΟΥΣ|ΙΑΣ|ΙΕΣ|ΙΟΣ|ΙΟΥ|ΙΟΙ|ΙΩΝ|ΙΟΝ|ΙΑ|ΙΟ"),
    restore: (s) => when(endsOnVowel(s) || s.length < 2 || S3_EXACT.has(s), "Ι") + when(s === "ΠΑΛ", "ΑΙ"),
  },
  {
    endings: endings("ΙΚΟΣ|ΙΚΟΝ|ΙΚΕΙΣ|ΙΚΟΙ|ΙΚΕΣ|ΙΚΟΥΣ|ΙΚΗ|ΙΚΗΣ|ΙΚΟ|ΙΚΑ|ΙΚΟΥ|ΙΚΩΝ|ΙΚΩΣ"),
    restore: (s) => when(endsOnVowel(s) || S4_EXACT.has(s) || S4_TAIL.endsAny(s), "ΙΚ"),
  },
];

/** Steps 5a–5m of the reference, in its order (verb endings). */
const STEPS_5: readonly Step[] = [
  { endings: endings("ΑΓΑΜΕ|ΗΣΑΜΕ|ΟΥΣΑΜΕ|ΗΚΑΜΕ|ΗΘΗΚΑΜΕ") },
  { endings: endings("ΑΜΕ"), restore: (s) => when(S5A_EXACT.has(s), "ΑΜ") },
  {
    endings: endings("ΑΓΑΝΕ|ΗΣΑΝΕ|ΟΥΣΑΝΕ|ΙΟΝΤΑΝΕ|ΙΟΤΑΝΕ|ΙΟΥΝΤΑΝΕ|ΟΝΤΑΝΕ|ΟΤΑΝΕ|ΟΥΝΤΑΝΕ|ΗΚΑΝΕ|ΗΘΗΚΑΝΕ"),
    restore: (s) => when(S5B_FIRST_EXACT.has(s), "ΑΓΑΝ"),
  },
  { endings: endings("ΑΝΕ"), restore: (s) => when(S5B_EXACT.has(s) || endsOnVowelNoY(s), "ΑΝ") },
  { endings: endings("ΗΣΕΤΕ") },
  { endings: endings("ΕΤΕ"), restore: (s) => when(endsOnVowelNoY(s) || S5C_TAIL.endsAny(s) || S5C_EXACT.has(s), "ΕΤ") },
  { endings: endings("ΟΝΤΑΣ|ΩΝΤΑΣ"), restore: (s) => when(s === "ΑΡΧ", "ΟΝΤ") + when(s.endsWith("ΚΡΕ"), "ΩΝΤ") },
  { endings: endings("ΟΜΑΣΤΕ|ΙΟΜΑΣΤΕ"), restore: (s) => when(s === "ΟΝ", "ΟΜΑΣΤ") },
  { endings: endings("ΙΕΣΤΕ"), restore: (s) => when(S5F_FIRST_EXACT.has(s), "ΙΕΣΤ") },
  { endings: endings("ΕΣΤΕ"), restore: (s) => when(S5F_EXACT.has(s), "ΕΣΤ") },
  { endings: endings("ΗΘΗΚΑ|ΗΘΗΚΕΣ|ΗΘΗΚΕ") },
  { endings: endings("ΗΚΑ|ΗΚΕΣ|ΗΚΕ"), restore: (s) => when(S5G_TAIL.endsAny(s) || S5G_EXACT.has(s), "ΗΚ") },
  { endings: endings("ΟΥΣΑ|ΟΥΣΕΣ|ΟΥΣΕ"), restore: (s) => when(S5H_EXACT.has(s) || S5H_TAIL.endsAny(s) || endsOnVowel(s), "ΟΥΣ") },
  {
    endings: endings("ΑΓΑ|ΑΓΕΣ|ΑΓΕ"),
    restore: (s) => when((S5I_EXACT.has(s) || S5I_TAIL.endsAny(s)) && !(S5I_NOT_EXACT.has(s) || S5I_NOT_TAIL.endsAny(s)), "ΑΓ"),
  },
  { endings: endings("ΗΣΕ|ΗΣΟΥ|ΗΣΑ"), restore: (s) => when(S5J_EXACT.has(s), "ΗΣ") },
  { endings: endings("ΗΣΤΕ"), restore: (s) => when(S5K_EXACT.has(s), "ΗΣΤ") },
  { endings: endings("ΟΥΝΕ|ΗΣΟΥΝΕ|ΗΘΟΥΝΕ"), restore: (s) => when(S5L_EXACT.has(s), "ΟΥΝ") },
  { endings: endings("ΟΥΜΕ|ΗΣΟΥΜΕ|ΗΘΟΥΜΕ"), restore: (s) => when(S5M_EXACT.has(s), "ΟΥΜ") },
];

/** 6a: -ΜΑΤΑ family keeps the Μ (ΓΡΑΜΜΑΤΑ -> ΓΡΑΜΜΑ, ΓΕΜΑΤΑ -> ΓΕΜΑΤ, ΣΤΑΜΑΤΑ -> ΣΤΑΜΑΤ). */
const S6A = endings("ΜΑΤΟΙ|ΜΑΤΟΥΣ|ΜΑΤΟ|ΜΑΤΑ|ΜΑΤΩΣ|ΜΑΤΩΝ|ΜΑΤΟΣ|ΜΑΤΕΣ|ΜΑΤΗ|ΜΑΤΗΣ|ΜΑΤΟΥ");

/** Generic inflectional endings, tried only on words no earlier step shortened. */
const LONG_ENDINGS = endings(
  "Α|ΑΓΑΤΕ|ΑΓΑΝ|ΑΕΙ|ΑΜΑΙ|ΑΝ|ΑΣ|ΑΣΑΙ|ΑΤΑΙ|ΑΩ|Ε|ΕΙ|ΕΙΣ|ΕΙΤΕ|ΕΣΑΙ|ΕΣ|ΕΤΑΙ|Ι|ΙΕΜΑΙ|ΙΕΜΑΣΤΕ|ΙΕΤΑΙ|" +
    "ΙΕΣΑΙ|ΙΕΣΑΣΤΕ|ΙΟΜΑΣΤΑΝ|ΙΟΜΟΥΝ|ΙΟΜΟΥΝΑ|ΙΟΝΤΑΝ|ΙΟΝΤΟΥΣΑΝ|ΙΟΣΑΣΤΑΝ|ΙΟΣΑΣΤΕ|ΙΟΣΟΥΝ|ΙΟΣΟΥΝΑ|" +
    "ΙΟΤΑΝ|ΙΟΥΜΑ|ΙΟΥΜΑΣΤΕ|ΙΟΥΝΤΑΙ|ΙΟΥΝΤΑΝ|Η|ΗΔΕΣ|ΗΔΩΝ|ΗΘΕΙ|ΗΘΕΙΣ|ΗΘΕΙΤΕ|ΗΘΗΚΑΤΕ|ΗΘΗΚΑΝ|ΗΘΟΥΝ|" +
    "ΗΘΩ|ΗΚΑΤΕ|ΗΚΑΝ|ΗΣ|ΗΣΑΝ|ΗΣΑΤΕ|ΗΣΕΙ|ΗΣΕΣ|ΗΣΟΥΝ|ΗΣΩ|Ο|ΟΙ|ΟΜΑΙ|ΟΜΑΣΤΑΝ|ΟΜΟΥΝ|ΟΜΟΥΝΑ|ΟΝΤΑΙ|" +
    "ΟΝΤΑΝ|ΟΝΤΟΥΣΑΝ|ΟΣ|ΟΣΑΣΤΑΝ|ΟΣΑΣΤΕ|ΟΣΟΥΝ|ΟΣΟΥΝΑ|ΟΤΑΝ|ΟΥ|ΟΥΜΑΙ|ΟΥΜΑΣΤΕ|ΟΥΝ|ΟΥΝΤΑΙ|ΟΥΝΤΑΝ|ΟΥΣ|" +
    "ΟΥΣΑΝ|ΟΥΣΑΤΕ|Υ|ΥΣ|Ω|ΩΝ|ΟΙΣ",
);

/** Comparative/superlative endings, stripped last. */
const DEGREE = endings("ΕΣΤΕΡ|ΕΣΤΑΤ|ΟΤΕΡ|ΟΤΑΤ|ΥΤΕΡ|ΥΤΑΤ|ΩΤΕΡ|ΩΤΑΤ");
const DEGREE_KEEP = endings("ΕΞ|ΕΣ|ΑΝ|ΚΑΤ|Κ|ΠΡ");
const DEGREE_YT = endings("ΚΑ|Μ|ΕΛΕ|ΛΕ|ΔΕ");

/** Step 1: the shortest matching exception ending wins, and it may be the whole word. */
function applyExceptions(word: string): string {
  for (const n of STEP1_LENGTHS) {
    if (n > word.length) break;
    const replacement = STEP1_EXCEPTIONS.get(word.slice(word.length - n));
    if (replacement !== undefined) return word.slice(0, word.length - n) + replacement;
  }
  return word;
}

function applySteps(word: string, steps: readonly Step[]): string {
  let s = word;
  for (const step of steps) {
    const n = step.endings.longestStrippable(s);
    if (n === 0) continue;
    const base = s.slice(0, s.length - n);
    s = step.restore ? base + step.restore(base) : base;
  }
  return s;
}

/** Stems a folded Greek word as python_greek_stemmer 0.1.1; short (< 3), non-Greek or protected words are kept. */
export function stem(word: string): string {
  if (word.length < 3 || !isGreekWord(word) || PROTECTED_WORDS.has(word)) return word;

  const originalLength = word.length;
  let s = applyExceptions(word);

  s = applySteps(s, STEPS_2_TO_4);
  // The reference special-cases this one word by overwriting the stem just before step 5a.
  if (word === "ΑΓΑΜΕ") s = "ΑΓΑΜ";
  s = applySteps(s, STEPS_5);

  const n6 = S6A.longestStrippable(s);
  if (n6 > 0) {
    const base = s.slice(0, s.length - n6);
    s = base + "Μ" + (base === "ΓΡΑΜ" ? "Α" : base === "ΓΕ" || base === "ΣΤΑ" ? "ΑΤ" : "");
  }

  // Length, not identity: a same-length rewrite (ΠΑΛΙΑ -> ΠΑΛΑΙ) still gets the generic pass.
  if (s.length === originalLength) {
    const n = LONG_ENDINGS.longestStrippable(s);
    if (n > 0) s = s.slice(0, s.length - n);
  }

  const nd = DEGREE.longestStrippable(s);
  if (nd > 0) {
    const base = s.slice(0, s.length - nd);
    if (DEGREE_YT.has(base)) s = base + "ΥΤ";
    else if (!DEGREE_KEEP.has(base)) s = base;
  }

  return s;
}

/** A memoised `stem` with its own cache. */
export function createCachedStemmer(): (word: string) => string {
  return memo(stem);
}
