package calibrate

import (
	"math"

	"github.com/routebench/routebench/router"
)

// CalibrationBins is the number of equal-width confidence bins of ECE, as
// the harness's ece metric uses.
const CalibrationBins = 10

// Judgement is one judge answer scored for calibration.
type Judgement struct {
	Confidence float64
	Correct    bool
}

// Judgements are the records' judge answers that have a right answer: the
// judge decided (not a rule) and the case expects an action (the answer is
// right when it names the expected skill) or a refusal (right when it is
// "none"). Cases expecting a clarify have no single right answer.
func Judgements(records []Record) []Judgement {
	var out []Judgement
	for _, r := range records {
		if !r.Judged || r.ByRule {
			continue
		}
		switch {
		case r.Expect.Acts():
			out = append(out, Judgement{r.JudgeConfidence, r.JudgeChoice == r.ExpectSkill})
		case r.Expect == router.Refuse:
			out = append(out, Judgement{r.JudgeConfidence, r.JudgeChoice == router.NoneChoice})
		}
	}
	return out
}

// Bin is one reliability bin.
type Bin struct {
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	N          int     `json:"n"`
	Confidence float64 `json:"confidence"` // mean confidence
	Accuracy   float64 `json:"accuracy"`   // share correct
}

// Quality is how well confidences match correctness.
type Quality struct {
	N int `json:"n"`
	// ECE is the expected calibration error over CalibrationBins bins.
	ECE float64 `json:"ece"`
	// Brier is the mean squared error of confidence against correctness.
	Brier float64 `json:"brier"`
	Bins  []Bin   `json:"bins"`
}

// Measure computes ECE and Brier of confidences mapped through calibrate
// (nil for none).
func Measure(js []Judgement, calibrate func(float64) float64) Quality {
	q := Quality{N: len(js), Bins: make([]Bin, CalibrationBins)}
	for b := range q.Bins {
		q.Bins[b].Lo, q.Bins[b].Hi = float64(b)/CalibrationBins, float64(b+1)/CalibrationBins
	}
	if len(js) == 0 {
		return q
	}
	for _, j := range js {
		conf := clamp01(j.Confidence)
		if calibrate != nil {
			conf = calibrate(conf)
		}
		y := 0.0
		if j.Correct {
			y = 1
		}
		b := min(int(conf*CalibrationBins), CalibrationBins-1)
		q.Bins[b].N++
		q.Bins[b].Confidence += conf
		q.Bins[b].Accuracy += y
		q.Brier += (conf - y) * (conf - y)
	}
	n := float64(len(js))
	q.Brier /= n
	for b := range q.Bins {
		bin := &q.Bins[b]
		if bin.N == 0 {
			continue
		}
		nb := float64(bin.N)
		bin.Confidence /= nb
		bin.Accuracy /= nb
		q.ECE += nb / n * math.Abs(bin.Accuracy-bin.Confidence)
	}
	return q
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

// Platt is a recalibration p = sigmoid(A*logit(conf) + B). A=1, B=0 is the
// identity.
type Platt struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
	// N is the judgements it was fitted on; Converged says Newton's method
	// settled.
	N         int  `json:"n"`
	Converged bool `json:"converged"`
}

// logitEps keeps logit finite for confidences of exactly 0 or 1 (rules and
// saturated judges).
const logitEps = 1e-4

func logit(p float64) float64 {
	p = math.Min(math.Max(p, logitEps), 1-logitEps)
	return math.Log(p / (1 - p))
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// Apply maps a raw confidence to its recalibrated value.
func (p Platt) Apply(conf float64) float64 { return sigmoid(p.A*logit(conf) + p.B) }

// FitPlatt fits A and B by Newton's method on the log-loss, with Platt's
// smoothed targets ((n+ + 1)/(n+ + 2) for right answers, 1/(n- + 2) for
// wrong ones), which keep the fit finite when the judgements separate.
// With no judgements, or only right or only wrong ones, the fit is the
// identity.
func FitPlatt(js []Judgement) Platt {
	p := Platt{A: 1, N: len(js)}
	pos := 0
	for _, j := range js {
		if j.Correct {
			pos++
		}
	}
	neg := len(js) - pos
	if pos == 0 || neg == 0 {
		return p
	}
	hiT := (float64(pos) + 1) / (float64(pos) + 2)
	loT := 1 / (float64(neg) + 2)
	x := make([]float64, len(js))
	t := make([]float64, len(js))
	for i, j := range js {
		x[i] = logit(j.Confidence)
		t[i] = loT
		if j.Correct {
			t[i] = hiT
		}
	}
	loss := func(a, b float64) float64 {
		var l float64
		for i := range x {
			z := a*x[i] + b
			// log(1+e^z) - t z, computed without overflow.
			l += math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z))) - t[i]*z
		}
		return l
	}
	a, b := 1.0, 0.0
	cur := loss(a, b)
	for range 100 {
		var ga, gb, haa, hab, hbb float64
		for i := range x {
			q := sigmoid(a*x[i] + b)
			d := q - t[i]
			w := q * (1 - q)
			ga += d * x[i]
			gb += d
			haa += w * x[i] * x[i]
			hab += w * x[i]
			hbb += w
		}
		// A tiny ridge keeps the Hessian invertible when every x is equal.
		haa += 1e-9
		hbb += 1e-9
		det := haa*hbb - hab*hab
		if det <= 0 {
			break
		}
		da := (hbb*ga - hab*gb) / det
		db := (haa*gb - hab*ga) / det
		// Backtracking: Newton steps can overshoot far from the optimum.
		step := 1.0
		next := loss(a-step*da, b-step*db)
		for next > cur && step > 1e-6 {
			step /= 2
			next = loss(a-step*da, b-step*db)
		}
		if next > cur {
			p.Converged = true // no descent left
			break
		}
		a, b = a-step*da, b-step*db
		improved := cur - next
		cur = next
		if math.Abs(step*da) < 1e-10 && math.Abs(step*db) < 1e-10 || improved < 1e-12 {
			p.Converged = true
			break
		}
	}
	p.A, p.B = a, b
	return p
}

// Calibration is the judge's calibration before and after a Platt fit on
// the fit split, measured on both splits.
type Calibration struct {
	Platt      Platt   `json:"platt"`
	FitBefore  Quality `json:"fit_before"`
	FitAfter   Quality `json:"fit_after"`
	EvalBefore Quality `json:"eval_before"`
	EvalAfter  Quality `json:"eval_after"`
}

// Calibrate fits Platt scaling on the fit records' judgements and
// measures both splits before and after.
func Calibrate(fit, eval []Record) Calibration {
	fj, ej := Judgements(fit), Judgements(eval)
	p := FitPlatt(fj)
	return Calibration{
		Platt:      p,
		FitBefore:  Measure(fj, nil),
		FitAfter:   Measure(fj, p.Apply),
		EvalBefore: Measure(ej, nil),
		EvalAfter:  Measure(ej, p.Apply),
	}
}
