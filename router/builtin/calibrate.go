package builtin

import (
	"math"
	"sync"
)

// calibration maps the judge's raw ranking to P(the chosen skill is
// right) as the product of two fitted logistic models:
//
//	P(right) = P(in scope) * P(right | in scope)
//
// P(right | in scope) reads how far the candidate is ahead of the others
// (its logit margin and softmax probability among the candidates) and its
// similarity fit; it is fitted on held-out routing of the registry's own
// request-like texts, every one of which some skill covers. A lone
// candidate is right whenever the request is in scope, and gets this
// factor near 1.
//
// P(in scope) reads how well the request fits the candidate at all,
// whatever the other candidates: its similarity fit, its cosine to the
// nearest registry text, and the linear layer's learned vote for it. It is
// fitted on the same held-out texts against pseudo out-of-scope requests:
// each text routed with its own skill taken out of the registry, so that
// whatever wins is wrong. The two groups weigh the same in the fit, which
// then reads likelihood ratios; outOfScopeShare sets the prior.
//
// Both start from a prior (calPrior, inPrior) that a registry without
// examples keeps: bare tool schemas are judged by fit alone.
type calibration struct {
	right [rightFeatures]float64
	in    [inFeatures]float64
	// items and correct count the in-scope held-out decisions, oos the
	// pseudo out-of-scope ones.
	items, correct, oos int
}

const (
	rightFeatures = 4 // 1, margin, logit of p, fit
	inFeatures    = 7 // 1, fit, nearest cosine, learned vote, name, params and schema coverage
)

// calPrior is P(right | in scope) for a registry with no examples:
// margin and softmax logit share one logit of confidence per logit, and a
// weak fit costs some. calPriorWeight is its strength, in held-out
// decisions' worth.
var (
	calPrior       = [rightFeatures]float64{-0.5, 0.5, 0.5, 2}
	calPriorWeight = 4.0
)

// inPrior is P(in scope) for a registry without examples (bare tool
// schemas), as a logit over inFeaturesOf's features: a request that gives
// the tool's required values and talks about what its schema talks about,
// or says half of its name's words, is in scope; one that does none of
// these is not, whatever its fit. Fitted by logistic regression on BFCL's
// development categories (simple_python and multiple against
// irrelevance, the two sides weighted equally), then the intercept set so
// that 98% of simple_python stays in scope: a request refused for nothing
// costs more than an irrelevant one asked about. A registry with examples
// fits its own.
var inPrior = [inFeatures]float64{-2.26, 1.34, 0, 0, 3.54, 1.82, 2.29}

// inPriorWeight is the prior's strength, in held-out decisions' worth.
const inPriorWeight = 4.0

// outOfScopeShare is the share of requests no skill covers that the
// confidence of a registry with examples assumes: the pseudo out-of-scope
// texts are weighed to stand for this share of all requests. Chosen on
// CLINC150's val split: at the imported execute band 0.44, 0.6% keeps
// in-scope accuracy at 91.6% with 62% of oos_val declined (1% gave
// 91.5/66, 2% 91.3/70; in-scope accuracy was held at 91.5% or more).
const outOfScopeShare = 0.006

// maxMargin bounds the margin: beyond it the softmax is saturated and the
// fit says more. A lone candidate has this margin.
const maxMargin = 12.0

// calInput is what calibration reads about one candidate.
type calInput struct {
	margin float64 // logit minus the best other candidate's
	prob   float64 // softmax probability among the candidates
	fit    float64 // similarity fit
	// learned is the linear layer's vote: the logit less its similarity
	// part, in units of the fit (divided by the evidence weights' scale).
	learned float64
	nearest float64 // cosine to the nearest positive text, weighted
	// nameCover is the share of the skill name's words the request says
	// ("internal" and "rate" of calculate_internal_rate: 2 of 3); a
	// function's name states what it does.
	nameCover float64
	// paramCover is the share of the skill's required params the request
	// gives values for (1 when none is required): a request a tool can
	// serve usually states what the tool needs.
	paramCover float64
	// schemaCover is how many of the request's plain words the skill's
	// texts or params schema use, as a share of enough (see schemaCover).
	schemaCover float64
}

func clipMargin(x float64) float64 { return math.Min(math.Max(x, -maxMargin), maxMargin) }

// rightFeaturesOf is P(right | in scope)'s input vector for a candidate.
func rightFeaturesOf(in calInput) []float64 {
	f := rightFeatureVec(in)
	return f[:]
}

// rightFeatureVec is rightFeaturesOf as an array, which outcome keeps on
// the stack (it runs for every candidate of every request).
func rightFeatureVec(in calInput) [rightFeatures]float64 {
	p := math.Min(math.Max(in.prob, 1e-6), 1-1e-6)
	return [rightFeatures]float64{1, clipMargin(in.margin), clipMargin(math.Log(p / (1 - p))), in.fit}
}

// inFeaturesOf is P(in scope)'s input vector for a candidate.
func inFeaturesOf(in calInput) []float64 {
	return []float64{1, in.fit, in.nearest, clipMargin(in.learned), in.nameCover, in.paramCover, in.schemaCover}
}

// outcome is the calibrated standing of one candidate.
type outcome struct {
	// right is P(this candidate is the right skill).
	right float64
	// inScope is P(some skill covers the request), judged from this
	// candidate's fit.
	inScope float64
}

// none reports whether "nothing fits" is the likelier reading of a
// request whose best candidate stands so: the request is more likely
// out of scope than in. Doubt between candidates is not "none": the bands
// turn it into a question.
func (o outcome) none() bool { return o.inScope < 0.5 }

func (c calibration) outcome(in calInput) outcome {
	inScope := sigmoid(dot(c.in[:], inFeaturesOf(in)))
	right := rightFeatureVec(in)
	return outcome{right: inScope * sigmoid(dot(c.right[:], right[:])), inScope: inScope}
}

func (c calibration) confidence(in calInput) float64 { return c.outcome(in).right }

func dot(a, b []float64) float64 {
	var z float64
	for k := range a {
		z += a[k] * b[k]
	}
	return z
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// heldOut is one text routed by a model that never saw it: in scope
// (its skill was among the candidates; correct says whether it won) or
// pseudo out of scope (its skill was taken out of the registry).
type heldOut struct {
	calInput
	correct bool
	oos     bool
	weight  float64
}

// priorOdds is the logit of the in-scope share.
func priorOdds() float64 { return math.Log((1 - outOfScopeShare) / outOfScopeShare) }

// inPriorTheta is inPrior on the balanced scale the fit works on (the
// prior odds are added after fitting).
func inPriorTheta() [inFeatures]float64 {
	p := inPrior
	p[0] -= priorOdds()
	return p
}

// fitCalibration fits both models by maximum a posteriori logistic
// regression on the held-out decisions.
func fitCalibration(obs []heldOut) calibration {
	var c calibration
	var rx [][]float64
	var ry, rw []float64
	var ix [][]float64
	var iy, iw []float64
	var inW, oosW float64
	for _, o := range obs {
		if o.oos {
			c.oos++
			oosW += o.weight
			continue
		}
		c.items++
		y := 0.0
		if o.correct {
			c.correct++
			y = 1
		}
		rx, ry, rw = append(rx, rightFeaturesOf(o.calInput)), append(ry, y), append(rw, o.weight)
		inW += o.weight
	}
	// The two fits share nothing: the first runs on its own core while
	// the second's inputs are gathered and it runs.
	var wg sync.WaitGroup
	wg.Go(func() { copy(c.right[:], fitLogistic(rx, ry, rw, calPrior[:], calPriorWeight)) })

	// In scope against pseudo out of scope, each group weighing half.
	for _, o := range obs {
		y, w := 1.0, o.weight/math.Max(inW, 1e-9)
		if o.oos {
			y, w = 0, o.weight/math.Max(oosW, 1e-9)
		}
		ix, iy, iw = append(ix, inFeaturesOf(o.calInput)), append(iy, y), append(iw, w*float64(len(obs))/2)
	}
	if c.oos == 0 {
		ix, iy, iw = nil, nil, nil // one group alone says nothing about the other
	}
	prior := inPriorTheta()
	copy(c.in[:], fitLogistic(ix, iy, iw, prior[:], inPriorWeight))
	c.in[0] += priorOdds()
	wg.Wait()
	return c
}

// fitLogistic maximizes the weighted logistic log-likelihood plus a
// Gaussian prior centred on prior (strength priorWeight) by Newton's
// method, halving a step that does not improve the objective: a handful
// of parameters, a handful of steps.
func fitLogistic(xs [][]float64, ys, ws []float64, prior []float64, priorWeight float64) []float64 {
	n := len(prior)
	theta := append([]float64(nil), prior...)
	loss := func(th []float64) float64 {
		var l float64
		for k := range th {
			l += priorWeight / 2 * (th[k] - prior[k]) * (th[k] - prior[k])
		}
		for i, x := range xs {
			z := dot(th, x)
			// log(1+e^z) - y*z, computed without overflow
			l += ws[i] * (math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z))) - ys[i]*z)
		}
		return l
	}
	grad := make([]float64, n)
	hess := make([][]float64, n)
	for k := range hess {
		hess[k] = make([]float64, n)
	}
	current := loss(theta)
	for iter := 0; iter < 100; iter++ {
		for a := range n {
			grad[a] = priorWeight * (theta[a] - prior[a])
			for b := range n {
				hess[a][b] = 0
			}
			hess[a][a] = priorWeight
		}
		for i, x := range xs {
			p := sigmoid(dot(theta, x))
			// The products as written out in full, left to right
			// (ws*(p-y)*x[a], ws*p*(1-p)*x[a]*x[b]), with their common
			// leading factors taken once: the same bits, a quarter of
			// the multiplications.
			g, h := ws[i]*(p-ys[i]), ws[i]*p*(1-p)
			for a, xa := range x {
				grad[a] += g * xa
				ha, row := h*xa, hess[a][:len(x)]
				for b, xb := range x {
					row[b] += ha * xb
				}
			}
		}
		step, ok := solve(hess, grad)
		if !ok {
			break
		}
		next := make([]float64, n)
		improved := false
		for scale := 1.0; scale > 1e-4; scale /= 2 {
			for k := range next {
				next[k] = theta[k] - scale*step[k]
			}
			if l := loss(next); l <= current {
				current, improved = l, true
				break
			}
		}
		if !improved {
			break
		}
		var size float64
		for k := range step {
			size = max(size, math.Abs(next[k]-theta[k]))
		}
		copy(theta, next)
		if size < 1e-9 {
			break
		}
	}
	return theta
}

// solve solves h*x = g by Gaussian elimination with partial pivoting; h
// and g are overwritten.
func solve(h [][]float64, g []float64) ([]float64, bool) {
	n := len(g)
	for col := 0; col < n; col++ {
		piv := col
		for r := col + 1; r < n; r++ {
			if math.Abs(h[r][col]) > math.Abs(h[piv][col]) {
				piv = r
			}
		}
		if math.Abs(h[piv][col]) < 1e-12 {
			return nil, false
		}
		h[col], h[piv] = h[piv], h[col]
		g[col], g[piv] = g[piv], g[col]
		for r := col + 1; r < n; r++ {
			f := h[r][col] / h[col][col]
			for c := col; c < n; c++ {
				h[r][c] -= f * h[col][c]
			}
			g[r] -= f * g[col]
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := g[r]
		for c := r + 1; c < n; c++ {
			s -= h[r][c] * x[c]
		}
		x[r] = s / h[r][r]
	}
	return x, true
}
